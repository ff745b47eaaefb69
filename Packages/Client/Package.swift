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
    dependencies: [
        .package(path: "../MediaCrypto"),
        // For the tests only: the `kas` and `packager` tools they run (see ClientTests).
        .package(path: "../KAS"),
        .package(path: "../Packager"),
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
            // AtomicFileWriter, for the offline library's records.
            .product(name: "MediaDRMToolSupport", package: "MediaCrypto"),
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
            // The tools the tests run as a user would; listed so `swift test` builds them, from
            // the current sources, into the same products directory as the test bundle (a tool
            // left in some other .build would be whatever version was built there last). This
            // package's own `player` is built with the tests anyway.
            .product(name: "kas", package: "KAS"),
            .product(name: "packager", package: "Packager"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
