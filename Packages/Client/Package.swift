// swift-tools-version:6.0
// Client: admission, key sessions, cbcs decryption and presentation; the `player` tool.
import PackageDescription

let package = Package(
    name: "Client",
    products: [
        .library(name: "Client", targets: ["Client"]),
        .library(name: "CCurl", targets: ["CCurl"]),
        .executable(name: "player", targets: ["PlayerTool"]),
    ],
    dependencies: [.package(path: "../MediaCrypto")],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "Client", dependencies: [
            "CCurl",
            .product(name: "Crypto", package: "MediaCrypto"),
            .product(name: "Encoding", package: "MediaCrypto"),
            .product(name: "JSON", package: "MediaCrypto"),
            .product(name: "ZIP", package: "MediaCrypto"),
            .product(name: "MP4", package: "MediaCrypto"),
            .product(name: "FPSv2", package: "MediaCrypto"),
            .product(name: "TDF", package: "MediaCrypto"),
            .product(name: "HLS", package: "MediaCrypto"),
            .product(name: "JOSE", package: "MediaCrypto"),
        ]),
        .executableTarget(name: "PlayerTool", dependencies: [
            "Client",
            .product(name: "Crypto", package: "MediaCrypto"),
            .product(name: "Encoding", package: "MediaCrypto"),
            .product(name: "MP4", package: "MediaCrypto"),
            .product(name: "ToolSupport", package: "MediaCrypto"),
        ]),
        .testTarget(name: "ClientTests", dependencies: [
            "Client",
            .product(name: "ZIP", package: "MediaCrypto"),
            .product(name: "Crypto", package: "MediaCrypto"),
            .product(name: "Encoding", package: "MediaCrypto"),
            .product(name: "JSON", package: "MediaCrypto"),
            .product(name: "MP4", package: "MediaCrypto"),
            .product(name: "FPSv2", package: "MediaCrypto"),
            .product(name: "TDF", package: "MediaCrypto"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
