import Foundation

/// Finds and runs the BUILT `kas` executable, so these tests exercise exactly what an operator runs.
enum KASToolHarness {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// SwiftPM puts executables and the test bundle in the same products directory, whatever the
    /// scratch path; `MEDIADRM_KAS` overrides.
    static func executable() throws -> String {
        if let override = ProcessInfo.processInfo.environment["MEDIADRM_KAS"], !override.isEmpty {
            return override
        }
        var directories: [URL] = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()]
        if let bundle = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(bundle.deletingLastPathComponent())
            directories.append(bundle.deletingLastPathComponent().deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        directories.append(package.appendingPathComponent(".build/debug"))
        for directory in directories {
            let candidate = directory.appendingPathComponent("kas").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure(description: "the built 'kas' executable was not found next to the test bundle (searched "
                      + directories.map(\.path).joined(separator: ", ") + "); run 'swift build' first")
    }

    /// Runs `kas` with a clean environment (no KAS_* leaking in from the caller) plus `environment`.
    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: String? = nil) throws -> Result {
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KAS_") }
        base.merge(environment) { $1 }
        let result = try runProcess(try executable(), arguments, environment: base, currentDirectory: directory)
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}
