// swift-tools-version:6.0
// Packager: demuxes MP4, segments, encrypts and writes fps-v2 and tdf-hls packages.
import PackageDescription

let package = Package(
    name: "Packager",
    products: [
        .library(name: "Packager", targets: ["Packager"]),
        .executable(name: "packager", targets: ["PackagerTool"]),
    ],
    dependencies: [.package(path: "../MediaCrypto")],
    targets: [
        .target(name: "Packager", dependencies: [
            .product(name: "Crypto", package: "MediaCrypto"),
            .product(name: "Encoding", package: "MediaCrypto"),
            .product(name: "JSON", package: "MediaCrypto"),
            .product(name: "ZIP", package: "MediaCrypto"),
            .product(name: "TDF", package: "MediaCrypto"),
            .product(name: "MP4", package: "MediaCrypto"),
            .product(name: "CENC", package: "MediaCrypto"),
            .product(name: "HLS", package: "MediaCrypto"),
            .product(name: "FPSv2", package: "MediaCrypto"),
        ]),
        .executableTarget(name: "PackagerTool", dependencies: [
            "Packager",
            .product(name: "ToolSupport", package: "MediaCrypto"),
            .product(name: "JSON", package: "MediaCrypto"),
            .product(name: "FPSv2", package: "MediaCrypto"),
        ]),
        .testTarget(name: "PackagerTests", dependencies: [
            "Packager",
            .product(name: "Crypto", package: "MediaCrypto"),
            .product(name: "Encoding", package: "MediaCrypto"),
            .product(name: "JSON", package: "MediaCrypto"),
            .product(name: "ZIP", package: "MediaCrypto"),
            .product(name: "TDF", package: "MediaCrypto"),
            .product(name: "MP4", package: "MediaCrypto"),
            .product(name: "CENC", package: "MediaCrypto"),
            .product(name: "HLS", package: "MediaCrypto"),
            .product(name: "FPSv2", package: "MediaCrypto"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
