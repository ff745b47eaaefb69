import Foundation

/// `Tools/python/delivery_stub.py` on 127.0.0.1: the playback API and a signed-URL origin whose
/// URLs expire after a number of uses (docs/delivery.md), in front of a real key service.
final class DeliveryStub: @unchecked Sendable {
    private let server: LoopbackScript

    init(arguments: [String]) throws {
        server = try LoopbackScript("delivery_stub.py", arguments: arguments)
    }

    func url(_ path: String) -> String { server.url(path) }

    /// Every request the stub received so far, in order: its method and its path and query
    /// exactly as sent.
    func requests() throws -> [(method: String, target: String)] {
        let response = try Curl.request("GET", url("/__requests"))
        guard let entries = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] else {
            throw TestFailure("the stub's request log is not an array of objects")
        }
        return entries.map { (($0["method"] as? String) ?? "", ($0["target"] as? String) ?? "") }
    }

    func stop() { server.stop() }
}
