import Foundation

/// `Tools/python/range_server.py` serving a directory on 127.0.0.1: an origin that can drop a
/// connection mid-body (`/__dropafter/N/FILE`) and logs each request's `Range` and `If-Range`.
/// It exits when its stdin closes, so a crashed run leaves no server behind.
final class RangeOrigin: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    init(root: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Tools.repositoryRoot.appendingPathComponent("Tools/python/range_server.py").path,
                             "--root", root]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), port > 0 else {
            process.terminate()
            throw TestFailure("range_server.py did not print its port (python3 with the standard library: make deps)")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The GET requests in arrival order, with their Range and If-Range headers.
    func getLog() throws -> [(path: String, range: String?, ifRange: String?)] {
        let response = try Curl.request("GET", url("/__hits"))
        guard let log = response.json?["log"] as? [[String: Any]] else { throw TestFailure("the origin's hit log is not JSON") }
        return log.filter { $0["method"] as? String == "GET" }.map {
            (($0["path"] as? String) ?? "", $0["range"] as? String, $0["ifRange"] as? String)
        }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
