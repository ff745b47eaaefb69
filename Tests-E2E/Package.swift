// swift-tools-version:6.0
// The end-to-end suite: package -> serve -> play against an in-process KAS, and the Client's
// tests that run the built `kas serve` and `packager` (ClientPlayback/). Depends on all four
// packages by path; run by `make e2e` (and `make test`) with the shared scratch path.
import PackageDescription

let package = Package(
    name: "EndToEnd",
    dependencies: [
        .package(path: "../Packages/MediaCrypto"),
        .package(path: "../Packages/Packager"),
        .package(path: "../Packages/KAS"),
        .package(path: "../Packages/Client"),
    ],
    targets: [
        .testTarget(name: "EndToEndTests", dependencies: [
            .product(name: "Packager", package: "Packager"),
            .product(name: "KAS", package: "KAS"),
            .product(name: "KASTesting", package: "KAS"),
            .product(name: "Client", package: "Client"),
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMZIP", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMMP4", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMWebVTT", package: "MediaCrypto"),
            // The tools the suite runs as a user would; listed so `swift test` builds them into
            // the same products directory as the test bundle.
            .product(name: "packager", package: "Packager"),
            .product(name: "player", package: "Client"),
            .product(name: "kas", package: "KAS"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
