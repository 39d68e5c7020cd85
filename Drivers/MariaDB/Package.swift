// swift-tools-version: 6.1
// StrataMariaDB: a MariaDB 10.11 driver for Strata over libmariadb. It is its own package and depends on Strata by
// path, so it can use only Strata's public API: the compiler proves the driver boundary is open.
import PackageDescription

let package = Package(
    name: "StrataMariaDB",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "StrataMariaDB", targets: ["StrataMariaDB"]),
        .executable(name: "strata-mariadb-bench", targets: ["StrataMariaDBBench"]),
    ],
    dependencies: [
        .package(name: "Strata", path: "../..")
    ],
    targets: [
        .systemLibrary(
            name: "CMariaDB", pkgConfig: "libmariadb", providers: [.apt(["libmariadb-dev"]), .brew(["mariadb"])]
        ),
        .target(
            name: "StrataMariaDB",
            dependencies: ["CMariaDB", .product(name: "Strata", package: "Strata")]
        ),
        // The bench's workloads, both sides (a library so the tests can check its checksums on a tiny scale).
        .target(
            name: "StrataMariaDBBenchKit",
            dependencies: ["CMariaDB", "StrataMariaDB", .product(name: "Strata", package: "Strata")],
            path: "Sources/StrataMariaDBBench/Kit"
        ),
        // `strata-mariadb-bench`: Strata over MariaDB against raw libmariadb, in the same run.
        .executableTarget(
            name: "StrataMariaDBBench",
            dependencies: ["StrataMariaDBBenchKit"],
            path: "Sources/StrataMariaDBBench/Main"
        ),
        .testTarget(
            name: "StrataMariaDBTests",
            dependencies: [
                "StrataMariaDB", "StrataMariaDBBenchKit", .product(name: "Strata", package: "Strata"),
                .product(name: "StrataConformance", package: "Strata"),
                .product(name: "StrataDifferential", package: "Strata"),
                .product(name: "StrataMemory", package: "Strata"),
                .product(name: "StrataSQLite", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
