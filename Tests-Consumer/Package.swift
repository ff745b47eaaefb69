// swift-tools-version:6.0
// A consumer of MediaCrypto as an app or server would be: it declares its own modules named
// `Crypto`, `JSON`, `ZIP`, `HLS` and `MP4` (swift-crypto and other common packages use those
// names) and links every MediaCrypto library beside them. SwiftPM refuses a graph in which two
// modules share a name, so this package building is the proof that MediaCrypto's modules can be
// imported beside them (docs/architecture.md). Its `Crypto` also declares swift-crypto's
// top-level type names (`SHA256`, `SymmetricKey`, `HMAC`, `HKDF`, `AES`, `P256`), which
// ConsumerCheck uses unqualified beside MediaDRMCrypto's: the build fails if MediaDRMCrypto
// declares one of them again. Built and run by `make consumer`, part of `make test`.
import PackageDescription

let mediaCryptoLibraries = [
    "MediaDRMEncoding", "MediaDRMCrypto", "MediaDRMJSON", "MediaDRMZIP", "MediaDRMTDF",
    "MediaDRMJOSE", "MediaDRMMP4", "MediaDRMHLS", "MediaDRMCENC", "MediaDRMMedia", "MediaDRMFPSv2",
    "MediaDRMToolSupport",
]

let package = Package(
    name: "Consumer",
    dependencies: [.package(path: "../Packages/MediaCrypto")],
    targets: [
        .target(name: "Crypto"),
        .target(name: "JSON"),
        .target(name: "ZIP"),
        .target(name: "HLS"),
        .target(name: "MP4"),
        .executableTarget(
            name: "ConsumerCheck",
            dependencies: ["Crypto", "JSON", "ZIP", "HLS", "MP4"]
                + mediaCryptoLibraries.map { .product(name: $0, package: "MediaCrypto") }),
    ],
    swiftLanguageModes: [.v6]
)
