#!/usr/bin/env bash
# run.sh: runs each libFuzzer target for a while from its committed corpus; exits non-zero on the first failure.
# Usage: Tests/Fuzz/run.sh [seconds per target, default 20] [target …] (after Tests/Fuzz/build.sh).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-20}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzURL FuzzRender FuzzSQLiteDecode FuzzPostgresDecode FuzzMemoryCondition)
# Swift's own crash backtracer and ASan both catch the crash signal and deadlock; libFuzzer reports it.
export SWIFT_BACKTRACE=enable=no
for target in "${targets[@]}"; do
    work="$(mktemp -d)"
    if ! ".build/debug/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work" "Corpus/$target" >"$work/log" 2>&1; then
        grep -v "^#[0-9]" "$work/log" | tail -40
        echo "fuzz target $target failed; its input is in $work (replay: Tests/Fuzz/.build/debug/$target FILE)"
        exit 1
    fi
    echo "$target: $(grep -E "^stat::number_of_executed_units" "$work/log" || true) in ${seconds}s"
    rm -rf "$work"
done
