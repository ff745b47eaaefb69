import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
@testable import KASTesting

/// A loopback origin for published packages, on the KAS HTTP layer (`TestServer`, libmicrohttpd):
/// GET and HEAD of the files under `root`, single byte ranges (`a-b`, `a-`, `-n`) answered 206
/// with `Content-Range`, an unsatisfiable one 416 with `bytes */size`, `Accept-Ranges`, a strong
/// `ETag`. It counts what it served, so tests can tell which entries a player read.
final class StaticOrigin: Sendable {
    let root: String
    let server: TestServer
    private let ledger = Ledger()

    var baseURL: String { server.baseURL.absoluteString }
    func url(_ path: String) -> String { server.url(path) }

    init(root: String) throws {
        self.root = root
        let root = root
        let ledger = ledger
        server = try TestServer(responder: HTTPResponder<BasicRequestContext> { request, _ in
            Self.respond(to: request, root: root, ledger: ledger)
        })
    }

    func stop() { server.stop(gracePeriod: .seconds(1)) }

    /// Requests per path and body bytes sent per path.
    var requests: [String: Int] { ledger.snapshot().requests }
    var bytesServed: [String: Int] { ledger.snapshot().bytes }
    var rangeRequests: Int { ledger.snapshot().ranges }

    private static func respond(to request: ServerRequest, root: String, ledger: Ledger) -> ServerResponse {
        guard request.method == .get || request.method == .head else {
            return ServerResponse(status: .methodNotAllowed, headers: ["Allow": "GET, HEAD"])
        }
        let relative = request.path.split(separator: "/").map(String.init)
        guard !relative.isEmpty, !relative.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else {
            return .text("not found", status: .notFound)
        }
        let path = root + "/" + relative.joined(separator: "/")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.intValue,
              let handle = FileHandle(forReadingAtPath: path) else {
            return .text("not found", status: .notFound)
        }
        defer { try? handle.close() }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        var headers: ServerHeaders = ["Accept-Ranges": "bytes", "ETag": "\"\(size)-\(Int(modified * 1000))\"",
                                    "Content-Type": contentType(path)]
        var range = 0..<size
        var status: HTTPStatus = .ok
        if let header = request.headers["Range"] {
            guard let requested = byteRange(header, size: size) else {
                headers["Content-Range"] = "bytes */\(size)"
                ledger.record(request.path, bytes: 0, range: true)
                return ServerResponse(status: 416, headers: headers)
            }
            range = requested
            status = 206
            headers["Content-Range"] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
        }
        let body: Data
        do {
            try handle.seek(toOffset: UInt64(range.lowerBound))
            body = try handle.read(upToCount: range.count) ?? Data()
        } catch {
            return .text("read failed", status: 500)
        }
        ledger.record(request.path, bytes: request.method == .head ? 0 : body.count, range: status == 206)
        return ServerResponse(status: status, headers: headers, body: body)
    }

    /// One `bytes=` range, clamped to the file; nil when unsatisfiable or not a single range.
    static func byteRange(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0, size > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let first = Int(parts[0]), first < size else { return nil }
        if parts[1].isEmpty { return first..<size }
        guard let last = Int(parts[1]), last >= first else { return nil }
        return first..<min(last + 1, size)
    }

    static func contentType(_ path: String) -> String {
        if path.hasSuffix(".m3u8") { return "application/vnd.apple.mpegurl" }
        if path.hasSuffix(".mp4") || path.hasSuffix(".m4s") { return "video/mp4" }
        if path.hasSuffix(".json") { return "application/json" }
        if path.hasSuffix(".tdf") { return "application/zip" }
        return "application/octet-stream"
    }

    private final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [String: Int] = [:]
        private var bytes: [String: Int] = [:]
        private var ranges = 0

        func record(_ path: String, bytes count: Int, range: Bool) {
            lock.lock()
            defer { lock.unlock() }
            requests[path, default: 0] += 1
            bytes[path, default: 0] += count
            if range { ranges += 1 }
        }

        func snapshot() -> (requests: [String: Int], bytes: [String: Int], ranges: Int) {
            lock.lock()
            defer { lock.unlock() }
            return (requests, bytes, ranges)
        }
    }
}
