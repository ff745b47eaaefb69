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
        ]),
        .executableTarget(name: "PackagerTool", dependencies: [
            "Packager",
            .product(name: "ToolSupport", package: "MediaCrypto"),
        ]),
        .testTarget(name: "PackagerTests", dependencies: [
            "Packager",
            .product(name: "Crypto", package: "MediaCrypto"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
