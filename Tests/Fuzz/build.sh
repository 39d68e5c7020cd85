#!/usr/bin/env bash
# build.sh: builds the libFuzzer targets of this package with Strata instrumented for coverage and ASan.
# Usage: Tests/Fuzz/build.sh (from anywhere); the executables land in Tests/Fuzz/.build/debug/.
set -euo pipefail
cd "$(dirname "$0")"
swiftc="$(readlink -f "$(command -v swiftc)")"
# libFuzzer ships with the toolchain's clang runtime: <toolchain>/usr/lib/clang/<version>/lib/linux.
runtime="$(dirname "$(ls "$(dirname "$swiftc")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)")"
swift build -c debug \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
    -Xlinker -L"$runtime" "$@" 2>&1 | grep -v "Cannot export local symbol"
