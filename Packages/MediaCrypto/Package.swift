// swift-tools-version:6.0
// MediaCrypto: the shared vocabulary of the system. Crypto over OpenSSL, encodings, strict JSON,
// ZIP over zlib, Standard TDF, JOSE, ISO BMFF boxes. Readers and writers live side by side here
// so the packager, the KAS and the client agree byte for byte.
import PackageDescription

let package = Package(
    name: "MediaCrypto",
    products: [
        .library(name: "COpenSSL", targets: ["COpenSSL"]),
        .library(name: "CZlib", targets: ["CZlib"]),
        .library(name: "MediaDRMEncoding", targets: ["MediaDRMEncoding"]),
        .library(name: "MediaDRMCrypto", targets: ["MediaDRMCrypto"]),
        .library(name: "MediaDRMJSON", targets: ["MediaDRMJSON"]),
        .library(name: "MediaDRMZIP", targets: ["MediaDRMZIP"]),
        .library(name: "MediaDRMTDF", targets: ["MediaDRMTDF"]),
        .library(name: "MediaDRMJOSE", targets: ["MediaDRMJOSE"]),
        .library(name: "MediaDRMMP4", targets: ["MediaDRMMP4"]),
        .library(name: "MediaDRMHLS", targets: ["MediaDRMHLS"]),
        .library(name: "MediaDRMCENC", targets: ["MediaDRMCENC"]),
        .library(name: "MediaDRMFPSv2", targets: ["MediaDRMFPSv2"]),
        .library(name: "MediaDRMToolSupport", targets: ["MediaDRMToolSupport"]),
        .executable(name: "tdf", targets: ["TDFTool"]),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .target(name: "MediaDRMEncoding"),
        .target(name: "MediaDRMCrypto", dependencies: ["COpenSSL", "MediaDRMEncoding"]),
        .target(name: "MediaDRMJSON"),
        .target(name: "MediaDRMZIP", dependencies: ["CZlib"]),
        .target(name: "MediaDRMJOSE", dependencies: ["MediaDRMCrypto", "MediaDRMJSON", "MediaDRMEncoding"]),
        .target(name: "MediaDRMTDF", dependencies: ["MediaDRMCrypto", "MediaDRMJSON", "MediaDRMZIP", "MediaDRMEncoding"]),
        .target(name: "MediaDRMMP4"),
        .target(name: "MediaDRMHLS"),
        .target(name: "MediaDRMCENC", dependencies: ["MediaDRMCrypto", "MediaDRMMP4"]),
        .target(name: "MediaDRMFPSv2", dependencies: ["MediaDRMTDF", "MediaDRMJSON", "MediaDRMZIP", "MediaDRMHLS", "MediaDRMMP4", "MediaDRMCrypto", "MediaDRMEncoding"]),
        .target(name: "MediaDRMToolSupport"),
        .executableTarget(name: "TDFTool", dependencies: ["MediaDRMTDF", "MediaDRMCrypto", "MediaDRMJSON", "MediaDRMToolSupport", "MediaDRMEncoding"]),

        .testTarget(name: "EncodingTests", dependencies: ["MediaDRMEncoding"]),
        .testTarget(name: "CryptoTests", dependencies: ["MediaDRMCrypto", "MediaDRMEncoding"]),
        .testTarget(name: "JSONTests", dependencies: ["MediaDRMJSON"]),
        .testTarget(name: "ZIPTests", dependencies: ["MediaDRMZIP"]),
        .testTarget(name: "JOSETests", dependencies: ["MediaDRMJOSE", "MediaDRMCrypto", "MediaDRMJSON", "MediaDRMEncoding"]),
        .testTarget(name: "TDFTests", dependencies: ["MediaDRMTDF", "MediaDRMCrypto", "MediaDRMJSON", "MediaDRMZIP", "MediaDRMEncoding"]),
        .testTarget(name: "MP4Tests", dependencies: ["MediaDRMMP4"]),
        .testTarget(name: "HLSTests", dependencies: ["MediaDRMHLS"]),
        .testTarget(name: "CENCTests", dependencies: ["MediaDRMCENC", "MediaDRMCrypto", "MediaDRMMP4"]),
        .testTarget(name: "FPSv2Tests", dependencies: ["MediaDRMFPSv2", "MediaDRMTDF", "MediaDRMJSON", "MediaDRMZIP", "MediaDRMHLS", "MediaDRMMP4", "MediaDRMCrypto", "MediaDRMEncoding"]),
        .testTarget(name: "ToolSupportTests", dependencies: ["MediaDRMToolSupport"]),
        .testTarget(name: "TDFToolTests", dependencies: ["MediaDRMTDF", "MediaDRMCrypto", "MediaDRMEncoding", "MediaDRMToolSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
