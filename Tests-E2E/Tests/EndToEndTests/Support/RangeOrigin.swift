import Foundation

/// `Tools/python/range_server.py` serving a directory on 127.0.0.1: an origin that can drop a
/// connection mid-body (`/__dropafter/N/FILE`), answer a path with a redirect (`--redirect`),
/// and logs each request's `Range`, `If-Range` and whether it carried an `Authorization`.
final class RangeOrigin: @unchecked Sendable {
    private let server: LoopbackScript
    var port: Int { server.port }

    /// `arguments`: more of range_server.py's options (`--redirect FROM=TO@STATUS`).
    init(root: String, arguments: [String] = []) throws {
        server = try LoopbackScript("range_server.py", arguments: ["--root", root] + arguments)
    }

    func url(_ path: String) -> String { server.url(path) }

    /// The GET requests in arrival order, with their Range and If-Range headers.
    func getLog() throws -> [(path: String, range: String?, ifRange: String?)] {
        try hitLog().filter { $0["method"] as? String == "GET" }.map {
            (($0["path"] as? String) ?? "", $0["range"] as? String, $0["ifRange"] as? String)
        }
    }

    /// Requests per path, and every request in arrival order: its method, path and whether it
    /// carried an `Authorization` header.
    func hits() throws -> (counts: [String: Int], log: [(method: String, path: String, authorization: Bool)]) {
        let counts = (try hitReport()["hits"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
        let log = try hitLog().map {
            (($0["method"] as? String) ?? "", ($0["path"] as? String) ?? "", ($0["authorization"] as? Bool) == true)
        }
        return (counts, log)
    }

    private func hitReport() throws -> [String: Any] {
        guard let report = try Curl.request("GET", url("/__hits")).json else { throw TestFailure("the origin's hit log is not JSON") }
        return report
    }

    private func hitLog() throws -> [[String: Any]] {
        guard let log = try hitReport()["log"] as? [[String: Any]] else { throw TestFailure("the origin's hit log has no log") }
        return log
    }

    func stop() { server.stop() }
}
