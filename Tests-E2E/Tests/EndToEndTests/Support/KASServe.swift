import Foundation
import Synchronization

/// The built `kas` as an operator runs it: a fresh data directory with a generated key ring,
/// `kas serve` on 127.0.0.1 (a port the kernel picks) as a child process, viewers' tokens from
/// `kas token`. `stop()` ends it gracefully; one still running when the test process exits is
/// killed then. Unlike `KASFixture` (the KAS in process), this is the shipped binary with its
/// own flags, logs and exit.
final class KASServe: @unchecked Sendable {
    let dataDirectory: String
    /// Its stderr: one JSON line per event (`listening`, `request`, ...).
    let log: String
    /// What its `listening` line says it serves (`http://127.0.0.1:PORT` without TLS).
    let address: String
    let publicKeyPEM: String
    var auditLog: String { dataDirectory + "/audit.log" }
    var port: Int? { address.split(separator: ":").last.flatMap { Int($0) } }
    private let kas: String
    private let process: Process

    /// `arguments`: more `kas serve` flags (`--tls-cert`, `--tls-key`).
    init(_ label: String, arguments: [String] = []) throws {
        let work = Scratch.directory(label)
        kas = try Tools.kas
        dataDirectory = work + "/data"
        try run(kas, ["keys", "generate", "--data-dir", dataDirectory]).check("kas keys generate")
        let exported = try run(kas, ["keys", "export-public", "--data-dir", dataDirectory])
        try exported.check("kas keys export-public")
        publicKeyPEM = exported.stdoutText
        log = work + "/kas.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        self.process = process
        process.executableURL = URL(fileURLWithPath: kas)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--data-dir", dataDirectory] + arguments
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        Self.children.withLock { _ = $0.insert(pid) }
        // A bounded poll for the listening line; the bound only limits a failure (busy machines are slow).
        var address: String?
        let deadline = Date().addingTimeInterval(120)
        while address == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.contains(#""event":"listening""#) {
                address = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["address"] as? String
            }
            if address == nil { usleep(50_000) }
        }
        guard let address else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            Self.stop(process)
            throw TestFailure("kas serve did not start: \(text.suffix(400))")
        }
        self.address = address
    }

    /// A viewer's bearer token from `kas token` (the data directory's dev issuer).
    func token(subject: String, claims: String) throws -> String {
        let output = try run(kas, ["token", "--sub", subject, "--claims", claims, "--data-dir", dataDirectory])
        try output.check("kas token")
        return output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() { Self.stop(process) }

    private static func stop(_ process: Process) {
        let pid = process.processIdentifier
        stopGracefully(process)
        children.withLock { _ = $0.remove(pid) }
    }

    /// Servers not stopped by their test (the shared fixtures'), killed when the process exits.
    private static let children: Mutex<Set<pid_t>> = {
        atexit { KASServe.children.withLock { for pid in $0 { kill(pid, SIGKILL) } } }
        return Mutex([])
    }()
}

