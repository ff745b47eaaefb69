// swift-tools-version:6.0
// Fixed-rate HTTP/1.1 load generator for `make bench` (Tools/bench.sh). Loopback only, bounded
// in count and time; no dependencies beyond Glibc and Foundation.
import PackageDescription

let package = Package(
    name: "loadgen",
    targets: [
        .executableTarget(name: "loadgen", path: "Sources/loadgen"),
    ]
)
