// swift-tools-version:6.0
// The fuzz targets: one entry point per parser (FuzzTargets), shared by the libFuzzer harness
// (Harness/, built only by `make fuzz` with -sanitize=fuzzer,address) and by the replay tests,
// which run every checked-in corpus and regression input through the same entry points in
// `make test`. See docs/fuzzing.md.
import PackageDescription

let package = Package(
    name: "Fuzz",
    products: [
        .library(name: "FuzzTargets", targets: ["FuzzTargets"]),
    ],
    dependencies: [
        .package(path: "../../Packages/MediaCrypto"),
        .package(path: "../../Packages/KAS"),
        .package(path: "../../Packages/Client"),
    ],
    targets: [
        .target(name: "FuzzTargets", dependencies: [
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMZIP", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
            .product(name: "MediaDRMCENC", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMWebVTT", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "KAS", package: "KAS"),
            .product(name: "KASTesting", package: "KAS"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "Client", package: "Client"),
        ]),
        .testTarget(name: "FuzzReplayTests", dependencies: ["FuzzTargets"]),
    ],
    swiftLanguageModes: [.v6]
)
