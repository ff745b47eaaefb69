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
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMZIP", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
            .product(name: "MediaDRMCENC", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "MediaDRMWebVTT", package: "MediaCrypto"),
            .product(name: "MediaDRMDASH", package: "MediaCrypto"),
        ]),
        .executableTarget(name: "PackagerTool", dependencies: [
            "Packager",
            .product(name: "MediaDRMToolSupport", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
        ]),
        .testTarget(name: "PackagerTests", dependencies: [
            "Packager",
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMZIP", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
            .product(name: "MediaDRMCENC", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "MediaDRMDASH", package: "MediaCrypto"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
