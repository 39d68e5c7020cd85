// swift-tools-version: 6.1
// TodoAPI: a Hummingbird 2 todo API on Strata, the example a server user can copy (README: In a server app).
import PackageDescription

let package = Package(
    name: "TodoAPI",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "todo-api", targets: ["TodoServer"])],
    dependencies: [
        // Strata by path: this example builds against the checkout it sits in. An app writes
        // .package(url: "https://github.com/…/strata", from: "…") instead.
        .package(name: "Strata", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "TodoAPI",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataSQLite", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "StrataMemory", package: "Strata"),
                .product(name: "StrataServiceLifecycle", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .executableTarget(name: "TodoServer", dependencies: ["TodoAPI"]),
        .testTarget(
            name: "TodoAPITests",
            dependencies: [
                "TodoAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
