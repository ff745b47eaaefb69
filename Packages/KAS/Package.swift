// swift-tools-version:6.0
// KAS: the key access server. HTTP(S) on libmicrohttpd, key ring, sessions and records in SQLite,
// policy decisions, OpenTDF-compatible routes.
import PackageDescription

let package = Package(
    name: "KAS",
    products: [
        .library(name: "KAS", targets: ["KAS"]),
        // Test harnesses (the whole KAS in process, a server on loopback, a self-signed
        // certificate) for this package's tests and the end-to-end suite; apps do not link it.
        .library(name: "KASTesting", targets: ["KASTesting"]),
        .library(name: "CSQLite", targets: ["CSQLite"]),
        .library(name: "CMicroHTTPD", targets: ["CMicroHTTPD"]),
        .executable(name: "kas", targets: ["KASTool"]),
    ],
    dependencies: [.package(path: "../MediaCrypto")],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "KAS", dependencies: [
            "CSQLite", "CMicroHTTPD",
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "MediaDRMHLS", package: "MediaCrypto"),
            .product(name: "MediaDRMOffline", package: "MediaCrypto"),
            .product(name: "CZlib", package: "MediaCrypto"),
        ]),
        .target(name: "KASTesting", dependencies: [
            "KAS",
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
        ]),
        .executableTarget(name: "KASTool", dependencies: [
            "KAS",
            .product(name: "MediaDRMToolSupport", package: "MediaCrypto"),
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
        ]),
        .testTarget(name: "KASTests", dependencies: [
            "KAS", "KASTesting",
            .product(name: "MediaDRMCrypto", package: "MediaCrypto"),
            .product(name: "MediaDRMJOSE", package: "MediaCrypto"),
            .product(name: "MediaDRMJSON", package: "MediaCrypto"),
            .product(name: "MediaDRMEncoding", package: "MediaCrypto"),
            .product(name: "MediaDRMTDF", package: "MediaCrypto"),
            .product(name: "MediaDRMFPSv2", package: "MediaCrypto"),
            .product(name: "MediaDRMMedia", package: "MediaCrypto"),
            .product(name: "MediaDRMOffline", package: "MediaCrypto"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
