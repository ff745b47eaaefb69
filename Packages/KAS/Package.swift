// swift-tools-version:6.0
// KAS: the key access server. HTTP(S) on libmicrohttpd, key ring, sessions and records in SQLite,
// policy decisions, OpenTDF-compatible routes.
import PackageDescription

/// MediaCrypto's libraries by module name.
func mediaCrypto(_ modules: String...) -> [Target.Dependency] {
    modules.map { .product(name: $0, package: "MediaCrypto") }
}

let package = Package(
    name: "KAS",
    products: [
        // What an embedder links: the application (routes, configuration, server) and, through
        // it, the domain and HTTP modules.
        .library(name: "KAS", targets: ["KAS"]),
        // Test harnesses (the whole KAS in process, a server on loopback, a self-signed
        // certificate) for this package's tests and the end-to-end suite; apps do not link it.
        .library(name: "KASTesting", targets: ["KASTesting"]),
        .executable(name: "kas", targets: ["KASTool"]),
    ],
    dependencies: [.package(path: "../MediaCrypto")],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // libcurl for the OpenID provider fetches. Not `CCurl`: the Client package has a module of
        // that name, and the end-to-end suite links both packages.
        .systemLibrary(name: "CKASCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Log lines and the metrics registry: written by the HTTP layer and by the domain alike.
        .target(name: "KASObservability", dependencies: mediaCrypto("MediaDRMJSON")),
        // The HTTP server, router and middleware: knows nothing of media, delivery or offline.
        .target(name: "KASHTTP", dependencies: ["CMicroHTTPD", "KASObservability"] + mediaCrypto("MediaDRMJSON")),
        // A Redis client: RESP, connections, a pool. Knows nothing of the KAS's records.
        .target(name: "KASRedis", dependencies: mediaCrypto("MediaDRMCrypto", "MediaDRMEncoding")),
        // The domain: media, delivery, offline and OpenTDF services, stores, keys, configuration.
        // It never imports KASHTTP: services take and return domain values.
        .target(name: "KASDomain", dependencies: ["CSQLite", "CKASCurl", "KASObservability", "KASRedis"] + mediaCrypto(
            "MediaDRMCrypto", "MediaDRMJOSE", "MediaDRMJSON", "MediaDRMEncoding", "MediaDRMTDF", "MediaDRMFPSv2",
            "MediaDRMMedia", "MediaDRMHLS", "MediaDRMMP4", "MediaDRMOffline", "MediaDRMProtobuf", "MediaDRMDASH")),
        // The routes (one adapter per service, each with one status table) and the application
        // that joins the domain to the HTTP server.
        .target(name: "KAS", dependencies: ["KASDomain", "KASHTTP", "KASObservability"] + mediaCrypto(
            "MediaDRMCrypto", "MediaDRMJOSE", "MediaDRMJSON", "MediaDRMEncoding", "MediaDRMTDF", "MediaDRMFPSv2",
            "MediaDRMMedia", "MediaDRMOffline", "MediaDRMProtobuf", "MediaDRMZIP")),
        .target(name: "KASTesting", dependencies: ["KAS", "KASDomain", "KASHTTP", "KASObservability", "KASRedis"]
            + mediaCrypto("MediaDRMJOSE", "MediaDRMJSON")),
        .executableTarget(name: "KASTool", dependencies: ["KAS", "KASDomain", "KASHTTP", "KASObservability"]
            + mediaCrypto("MediaDRMToolSupport", "MediaDRMCrypto", "MediaDRMJOSE", "MediaDRMJSON")),
        .testTarget(name: "KASTests", dependencies: ["KAS", "KASDomain", "KASHTTP", "KASObservability", "KASRedis", "KASTesting"]
            + mediaCrypto("MediaDRMCrypto", "MediaDRMJOSE", "MediaDRMJSON", "MediaDRMEncoding", "MediaDRMTDF", "MediaDRMFPSv2",
                          "MediaDRMMedia", "MediaDRMOffline", "MediaDRMProtobuf")),
    ],
    swiftLanguageModes: [.v6]
)
