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
        .library(name: "Encoding", targets: ["Encoding"]),
        .library(name: "Crypto", targets: ["Crypto"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "ZIP", targets: ["ZIP"]),
        .library(name: "TDF", targets: ["TDF"]),
        .library(name: "JOSE", targets: ["JOSE"]),
        .library(name: "MP4", targets: ["MP4"]),
        .library(name: "HLS", targets: ["HLS"]),
        .library(name: "CENC", targets: ["CENC"]),
        .library(name: "FPSv2", targets: ["FPSv2"]),
        .library(name: "ToolSupport", targets: ["ToolSupport"]),
        .executable(name: "tdf", targets: ["TDFTool"]),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .target(name: "Encoding"),
        .target(name: "Crypto", dependencies: ["COpenSSL", "Encoding"]),
        .target(name: "JSON"),
        .target(name: "ZIP", dependencies: ["CZlib"]),
        .target(name: "JOSE", dependencies: ["Crypto", "JSON", "Encoding"]),
        .target(name: "TDF", dependencies: ["Crypto", "JSON", "ZIP", "Encoding"]),
        .target(name: "MP4"),
        .target(name: "HLS"),
        .target(name: "CENC", dependencies: ["Crypto", "MP4"]),
        .target(name: "FPSv2", dependencies: ["TDF", "JSON", "ZIP", "HLS", "MP4", "Crypto", "Encoding"]),
        .target(name: "ToolSupport"),
        .executableTarget(name: "TDFTool", dependencies: ["TDF", "Crypto", "JSON", "ToolSupport", "Encoding"]),

        .testTarget(name: "EncodingTests", dependencies: ["Encoding"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "Encoding"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "ZIPTests", dependencies: ["ZIP"]),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "Crypto", "JSON", "Encoding"]),
        .testTarget(name: "TDFTests", dependencies: ["TDF", "Crypto", "JSON", "ZIP", "Encoding"]),
        .testTarget(name: "MP4Tests", dependencies: ["MP4"]),
        .testTarget(name: "HLSTests", dependencies: ["HLS"]),
        .testTarget(name: "CENCTests", dependencies: ["CENC", "Crypto", "MP4"]),
        .testTarget(name: "FPSv2Tests", dependencies: ["FPSv2", "TDF", "JSON", "ZIP", "HLS", "MP4", "Crypto", "Encoding"]),
        .testTarget(name: "ToolSupportTests", dependencies: ["ToolSupport"]),
        .testTarget(name: "TDFToolTests", dependencies: ["TDF", "Crypto", "Encoding", "ToolSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
