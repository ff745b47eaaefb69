// swift-tools-version:6.0
// The libFuzzer harness over FuzzTargets. Built only by `make fuzz`, with
// `-sanitize=fuzzer,address`: libFuzzer supplies `main`, so this package cannot be built or
// linked without it. See docs/fuzzing.md.
import PackageDescription

let package = Package(
    name: "FuzzHarness",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CLibFuzzer"),
        .executableTarget(name: "FuzzHarness", dependencies: [
            "CLibFuzzer",
            .product(name: "FuzzTargets", package: "Fuzz"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
