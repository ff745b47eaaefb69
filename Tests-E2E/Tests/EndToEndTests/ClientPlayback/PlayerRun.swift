@testable import Client
import Dispatch
import Foundation
import Testing

/// Runs the BUILT `player` and reads what it says: the tests of what `player` says when it is
/// refused or fails, against the BUILT `kas serve` (plain http on loopback, and the TLS one).
/// They sit inside the suites that own those key services, whose tests count the services'
/// requests and sessions: serialized with them, they never disturb those counts.
enum PlayerRun {
    struct Run {
        let output: ProcessResult
        let outputFile: URL
        var stderr: String { output.stderr }
        /// The `--json` result line, when there is one.
        var result: [String: Any]? {
            stderr.split(separator: "\n").compactMap { line in
                try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            }.last { $0["event"] as? String == "result" }
        }
    }

    static func play(_ source: String, kas: String, token: String, _ extra: [String] = [], json: Bool = false,
                     environment: [String: String]? = nil) async throws -> Run {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("player-message-\(UUID().uuidString).mp4")
        var arguments = ["play", source, "--kas", kas, "--token", token] + extra
        if !extra.contains("--play") { arguments += ["-o", file.path] }
        if json { arguments.append("--json") }
        return Run(output: try await player(arguments, environment: environment), outputFile: file)
    }

    /// The built `player`, waited for on a dispatch thread: a test blocked on a child process
    /// never holds one of the few threads the other suites' async tests run on.
    static func player(_ arguments: [String], environment: [String: String]? = nil) async throws -> ProcessResult {
        let path = try Tools.player
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try run(path, arguments, environment: environment) })
            }
        }
    }

    /// A refused playback: exit 1, the refusal's code and explanation in the text and in the
    /// JSON result line, no clear file, and neither the token nor a session id anywhere.
    static func expectRefused(_ text: Run, _ json: Run, _ refusal: PlaybackError.Refusal, status: Int, token: String) {
        #expect(text.output.status == 1)
        #expect(text.stderr.contains(refusal.explanation), "\(text.stderr)")
        #expect(text.stderr.contains("[refusal \(refusal.code)]"), "\(text.stderr)")
        #expect(text.stderr.contains("HTTP \(status)"))
        #expect(json.output.status == 1)
        let result = json.result
        #expect(result?["ok"] as? Bool == false)
        #expect(result?["refusal"] as? String == refusal.code, "\(json.stderr)")
        #expect(result?["status"] as? Int == status)
        #expect((result?["reason"] as? String)?.contains(refusal.explanation) == true)
        for run in [text, json] {
            #expect(!FileManager.default.fileExists(atPath: run.outputFile.path))
            #expect(!run.stderr.contains(token))
            #expect(!run.stderr.contains("sessionId"))
        }
    }
}
