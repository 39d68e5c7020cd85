// swift-tools-version: 6.1
// Strata's libFuzzer targets: a nested package, so `swift test` at the root never builds them (Development article, Fuzzing).
import PackageDescription

/// libFuzzer without its `main` (each fuzz executable's main calls `LLVMFuzzerRunDriver`), linked into the fuzz
/// executables only. `build.sh` passes the directory that holds it and instruments all of Strata for it
/// (`-sanitize=address -sanitize-coverage=…`); `-sanitize=fuzzer` cannot be used, because it links libFuzzer's
/// `main` into every executable, the `@Model` macro's plugin included.
let libFuzzer: [LinkerSetting] = [.linkedLibrary("clang_rt.fuzzer_no_main-x86_64"), .linkedLibrary("stdc++")]

func product(_ name: String) -> Target.Dependency { .product(name: name, package: "Strata") }

func fuzzTarget(_ name: String, _ drivers: [String]) -> Target {
    .executableTarget(
        name: name, dependencies: ["FuzzSupport", product("Strata")] + drivers.map(product), linkerSettings: libFuzzer)
}

let package = Package(
    name: "StrataFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Strata", path: "../..")],
    targets: [
        .target(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer", product("Strata")]),
        fuzzTarget("FuzzURL", []),
        fuzzTarget("FuzzRender", ["StrataSQLite", "StrataPostgres"]),
        fuzzTarget("FuzzSQLiteDecode", ["StrataSQLite"]),
        fuzzTarget("FuzzPostgresDecode", ["StrataPostgres"]),
        fuzzTarget("FuzzMemoryCondition", ["StrataMemory"]),
    ]
)
