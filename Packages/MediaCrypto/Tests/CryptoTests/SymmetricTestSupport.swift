import Foundation

/// Helpers for the symmetric-crypto tests: hex literals for published vectors and a runner for
/// the system `openssl` CLI, the independent implementation the tests cross-check against.
enum SymmetricTestSupport {
    struct OpenSSLFailure: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "openssl exited with status \(status)" }
    }

    /// Bytes of a hex literal from a standard; whitespace is ignored so vectors can be laid out
    /// as printed. Test-only: a malformed literal is a bug in the test itself.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.unicodeScalars.filter { !$0.properties.isWhitespace })
        precondition(digits.count % 2 == 0, "odd hex literal in a test vector")
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let value = UInt8(String(digits[index]) + String(digits[index + 1]), radix: 16) else {
                preconditionFailure("bad hex literal in a test vector")
            }
            out.append(value)
            index += 2
        }
        return out
    }

    static func data(_ hex: String) -> Data { Data(bytes(hex)) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Deterministic filler bytes (not secret, reproducible across runs).
    static func pattern(count: Int, seed: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ ($0 >> 8)) }
    }

    /// Runs /usr/bin/openssl with `arguments`, feeding `input` through a temporary file (no pipe
    /// deadlock on large inputs), and returns what it wrote to `-out`. `dgst` takes its input
    /// file as a trailing operand instead of `-in`.
    static func openssl(_ arguments: [String], input: [UInt8]) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crypto-sym-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in.bin")
        let outputURL = directory.appendingPathComponent("out.bin")
        try Data(input).write(to: inputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments.first == "dgst"
            ? arguments + ["-out", outputURL.path, inputURL.path]
            : arguments + ["-in", inputURL.path, "-out", outputURL.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OpenSSLFailure(status: process.terminationStatus) }
        return Array(try Data(contentsOf: outputURL))
    }
}
