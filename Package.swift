// swift-tools-version: 6.1
// Strata: an ActiveRecord-style ORM for Swift with pluggable storage backends.
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataSQLite", targets: ["StrataSQLite"]),
        .library(name: "StrataMemory", targets: ["StrataMemory"]),
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .library(name: "StrataConformance", targets: ["StrataConformance"]),
        .library(name: "StrataServiceLifecycle", targets: ["StrataServiceLifecycle"]),
        .library(name: "StrataDifferential", targets: ["StrataDifferential"]),
        .library(name: "StrataEncryption", targets: ["StrataEncryption"]),
        .executable(name: "strata", targets: ["strata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", "603.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "Strata",
            dependencies: [
                "StrataMacros", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .systemLibrary(name: "CSQLite", path: "Drivers/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "StrataSQLite", dependencies: ["Strata", "CSQLite"], path: "Drivers/SQLite"),
        .target(name: "StrataMemory", dependencies: ["Strata"], path: "Drivers/Memory"),
        .systemLibrary(name: "CPostgres", path: "Drivers/CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "StrataPostgres", dependencies: ["Strata", "CPostgres"], path: "Drivers/Postgres"),
        .target(
            name: "StrataConformance",
            dependencies: [
                "Strata", "StrataEncryption", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "conformance"
        ),
        .target(name: "StrataDifferential", dependencies: ["Strata", "StrataEncryption"]),
        // Kept apart so that the core does not depend on swift-crypto (article Encrypted columns).
        .target(
            name: "StrataEncryption", dependencies: ["Strata", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Kept apart so that the core depends on swift-log and swift-metrics only (README: In a server app).
        .target(
            name: "StrataServiceLifecycle",
            dependencies: ["Strata", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(name: "CBenchValgrind"),
        .target(
            name: "StrataBench",
            dependencies: [
                "Strata", "StrataSQLite", "StrataMemory", "StrataPostgres", "CSQLite", "CPostgres", "CBenchValgrind",
                "StrataEncryption",
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "strata",
            dependencies: [
                "Strata", "StrataSQLite", "StrataMemory", "StrataPostgres", "StrataConformance", "StrataBench",
                "StrataDifferential",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .testTarget(name: "StrataSQLiteTests", dependencies: ["StrataSQLite", "StrataMemory", "StrataConformance"]),
        .testTarget(name: "StrataMemoryTests", dependencies: ["StrataMemory", "StrataConformance"]),
        .testTarget(
            name: "StrataExamplesTests",
            dependencies: [
                "StrataSQLite", "StrataMemory", "StrataConformance", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "StrataPostgresTests", dependencies: ["StrataPostgres", "StrataConformance"]),
        .testTarget(
            name: "StrataDifferentialTests",
            dependencies: ["StrataDifferential", "StrataSQLite", "StrataMemory", "StrataPostgres"]
        ),
        .testTarget(name: "StrataBenchTests", dependencies: ["StrataBench", "Strata", "StrataPostgres"]),
        .testTarget(
            name: "StrataEncryptionTests",
            dependencies: [
                "StrataEncryption", "StrataSQLite", "StrataMemory", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "StrataServiceLifecycleTests",
            dependencies: [
                "StrataServiceLifecycle", "StrataSQLite", "StrataMemory", "StrataPostgres", "StrataConformance",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
