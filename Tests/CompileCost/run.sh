#!/usr/bin/env bash
# The @Model macro's compile cost: a debug compile (-Onone -g, objects) of N models of F fields, against the same
# structs as plain Codable and against the macro's own expansion written out by hand (what the generated code costs
# without the macro plugin's round trips). CPU seconds (user + sys, the plugin's included), best of three.
#
# Usage: Tests/CompileCost/run.sh [models] [fields]   (default 200 10), after `swift build --build-tests`: it uses
# the Strata module and the macro plugin of .build/debug.
set -euo pipefail
models=${1:-200}
fields=${2:-10}
repo=$(cd "$(dirname "$0")/../.." && pwd)
debug="$repo/.build/debug"
[[ -f "$debug/Modules/Strata.swiftmodule" && -x "$debug/StrataMacros-tool" ]] || {
    echo "build first: swift build --build-tests" >&2
    exit 2
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/macro" "$dir/plain" "$dir/expanded" "$dir/out"
types=(String Int Double Bool Date String Int64 "String?" "Int?" Data)
fieldLines() {  # fieldLines SUFFIX: the F-1 fields after id, each followed by SUFFIX(n)
    for ((f = 1; f < fields; f++)); do
        echo "    public var field$f: ${types[$((f % ${#types[@]}))]}$($1 "$f")"
    done
}
none() { :; }
tracked() { echo " { didSet { _persistence?.markChanged($1) } }"; }
for ((m = 0; m < models; m++)); do
    {
        printf 'import Foundation\nimport Strata\n\n@Model\npublic struct Record%d {\n    public var id: Int64?\n' "$m"
        fieldLines none
        echo "}"
    } > "$dir/macro/Record$m.swift"
    {
        printf 'import Foundation\nimport Strata\n\npublic struct Record%d: Codable, Sendable {\n' "$m"
        echo "    public var id: Int64?"
        fieldLines none
        echo "}"
    } > "$dir/plain/Record$m.swift"
done
plugin=(-load-plugin-executable "$debug/StrataMacros-tool#StrataMacros")
# The macro's expansion of Record0, as the compiler prints it, copied for every model.
swiftc -typecheck -module-name M -I "$debug/Modules" "${plugin[@]}" "$dir/macro/Record0.swift" \
    -Xfrontend -dump-macro-expansions 2> "$dir/expansions.txt"
awk '/^@__swiftmacro_.*ModelfMe_/ {f = 1; getline; next} f && /^-+$/ {exit} f' "$dir/expansions.txt" \
    > "$dir/extension.txt"
[[ -s "$dir/extension.txt" ]] || {
    echo "could not read the macro's expansion" >&2
    exit 1
}
for ((m = 0; m < models; m++)); do
    {
        printf 'import Foundation\nimport Strata\n\npublic struct Record%d {\n' "$m"
        echo "    public var id: Int64? { didSet { _persistence?.markChanged(0) } }"
        fieldLines tracked
        echo "    @Strata.PersistenceStorage public var _persistence: Strata.PersistenceState? = nil"
        echo "}"
        sed "s/Record0/Record$m/g; s/\"record0\"/\"record$m\"/" "$dir/extension.txt"
    } > "$dir/expanded/Record$m.swift"
done
cpu() {  # cpu NAME ARGS…: the best of three CPU times of compiling $dir/NAME
    local name=$1 best=""
    shift
    for _ in 1 2 3; do
        rm -rf "$dir/out"/*
        (cd "$dir/out" && /usr/bin/time -f "%U %S" swiftc -c -Onone -g -module-name "$name" -I "$debug/Modules" \
            "$@" "$dir/$name"/*.swift > /dev/null 2> "$dir/log") || { cat "$dir/log" >&2; exit 1; }
        local t
        t=$(tail -1 "$dir/log" | awk '{print $1 + $2}')
        best=$(echo "$t $best" | awk '{if ($2 == "" || $1 < $2) print $1; else print $2}')
    done
    echo "$best"
}
plainCPU=$(cpu plain)
expandedCPU=$(cpu expanded)
macroCPU=$(cpu macro "${plugin[@]}")
ratio() { echo "$1 $2" | awk '{printf "%.2f", $1 / $2}'; }
echo "$models models of $fields fields, CPU seconds: plain Codable $plainCPU, expansion by hand $expandedCPU" \
    "($(ratio "$expandedCPU" "$plainCPU")x), @Model $macroCPU ($(ratio "$macroCPU" "$plainCPU")x)"
