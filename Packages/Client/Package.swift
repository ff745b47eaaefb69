// swift-tools-version:6.0
// Client: admission, key sessions, cbcs decryption and presentation; the `player` tool.
import PackageDescription

let package = Package(
    name: "Client",
    products: [
        .library(name: "Client", targets: ["Client"]),
        .executable(name: "player", targets: ["PlayerTool"]),
    ],
    dependencies: [
        .package(path: "../MediaCrypto"),
    ],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "Client", dependencies: [
            "CCurl",
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMZIP", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
            .product(name: "MediaDRMCENC", package: "MediaCrypto"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            .product(name: "MediaDRMOffline", package: "MediaCrypto"),
            .product(name: "MediaDRMWebVTT", package: "MediaCrypto"),
        ]),
        .executableTarget(name: "PlayerTool", dependencies: [
            "Client",
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
            .product(name: "MediaDRMToolSupport", package: "MediaCrypto"),
        ]),
        .testTarget(name: "ClientTests", dependencies: [
            "Client",
            .product(name: "MediaDRMZIP", package: "MediaCrypto"),
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMOffline", package: "MediaCrypto"),
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            // The tests run this package's own `player`, which `swift test` builds with them.
            // Tests that need the `kas` or `packager` tools live in Tests-E2E.
        ]),
    ],
    swiftLanguageModes: [.v6]
)
