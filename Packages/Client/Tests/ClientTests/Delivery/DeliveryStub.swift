import Foundation
import MediaDRMEncoding
import MediaDRMJSON
@testable import Client

/// `Tools/python/delivery_stub.py` on 127.0.0.1: the licence dialects, the playback API and a
/// signed-URL origin as docs/delivery.md describes them. Stopped when this object goes away
/// (and by the stub itself when our end of its stdin closes).
final class DeliveryStub: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    /// One recorded request, as the stub received it.
    struct Request {
        let method: String
        /// Path and query exactly as sent.
        let target: String
        let headers: [(name: String, value: String)]
        let body: Data

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    init(arguments: [String] = []) throws {
        let server = try LoopbackScript("delivery_stub.py", arguments: arguments, role: "the delivery stub")
        self.port = server.port
        self.process = server.process
        self.input = server.input
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every request the stub received so far, in order.
    func requests(using client: HTTPClient) throws -> [Request] {
        let response = try client.sendSynchronously(TransportRequest(url: url("/__requests")))
        guard let entries = try JSONParser.parse(response.body).array else { throw TestSupportError("the request log is not an array") }
        return try entries.map { entry in
            guard let object = entry.object else { throw TestSupportError("a request entry is not an object") }
            let headers = try object.requireArray("headers").map { pair -> (name: String, value: String) in
                guard let items = pair.array, items.count == 2, let name = items[0].string, let value = items[1].string else {
                    throw TestSupportError("a header is not a [name, value] pair")
                }
                return (name, value)
            }
            return Request(method: try object.requireString("method"), target: try object.requireString("target"),
                           headers: headers, body: try Base64.decode(try object.requireString("body")))
        }
    }

    /// The requests whose path starts with `prefix`.
    func requests(under prefix: String, using client: HTTPClient) throws -> [Request] {
        try requests(using: client).filter { $0.path.hasPrefix(prefix) }
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
