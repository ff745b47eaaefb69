import Foundation
import KASObservability
import MediaDRMJSON
import MediaDRMMedia

/// One key or session decision.
package struct MediaAuditEvent: Sendable, Equatable {
    public enum Decision: String, Sendable { case allow, deny, error }

    public var time: Date
    /// `session_start`, `session_heartbeat`, `session_end` or `key_request`.
    public var event: String
    /// `Identity.viewerHash`, never `sub`.
    public var viewerHash: String?
    /// The asset id (policy uuid).
    public var asset: String?
    public var component: String?
    public var `protocol`: String?
    public var decision: Decision
    /// A fixed reason code (`ManifestRefusal`, `MediaDenial` or the service's own), never request data.
    public var reason: String
    public var latencyMilliseconds: Double

    public init(time: Date, event: String, viewerHash: String?, asset: String?, component: String?, protocol: String?,
                decision: Decision, reason: String, latencyMilliseconds: Double) {
        self.time = time
        self.event = event
        self.viewerHash = viewerHash
        self.asset = asset
        self.component = component
        self.protocol = `protocol`
        self.decision = decision
        self.reason = reason
        self.latencyMilliseconds = latencyMilliseconds
    }

    /// A decision about to be made: denied with `reason` until the handler says otherwise.
    static func denied(_ event: String, viewer: Identity, reason: String, time: Date) -> MediaAuditEvent {
        MediaAuditEvent(time: time, event: event, viewerHash: viewer.viewerHash, asset: nil, component: nil, protocol: nil,
                        decision: .deny, reason: reason, latencyMilliseconds: 0)
    }

    /// A session that ended as a consequence of another decision (`replaced`,
    /// `ended_over_stream_limit`): the audit log accounts for every session that ends.
    static func sessionEnded(viewer: Identity, asset: String, component: String?, reason: String,
                             time: Date) -> MediaAuditEvent {
        MediaAuditEvent(time: time, event: "session_end", viewerHash: viewer.viewerHash, asset: asset,
                        component: component, protocol: nil, decision: .allow, reason: reason, latencyMilliseconds: 0)
    }

    /// One JSON line. Keys, tokens, SPCs, CKCs, wrapped keys and session ids have no field here.
    public var jsonLine: String { jsonLine(node: nil) }

    /// One JSON line naming the KAS node that decided (`node`, docs/kas.md: several nodes share
    /// one store but each keeps its own audit log, so a merged log still says who decided).
    public func jsonLine(node: String?) -> String {
        var members: [(String, JSONValue)] = [
            ("time", .string(Self.timestamp(time))),
            ("event", .string(event)),
            ("decision", .string(decision.rawValue)),
            ("reason", .string(reason)),
            ("latencyMs", .number(JSONNumber((latencyMilliseconds * 1000).rounded() / 1000))),
        ]
        if let viewerHash { members.append(("viewer", .string(viewerHash))) }
        if let asset { members.append(("asset", .string(asset))) }
        if let component { members.append(("component", .string(component))) }
        if let proto = self.protocol { members.append(("protocol", .string(proto))) }
        if let node { members.append(("node", .string(node))) }
        return JSONWriter.string(.object(JSONObject(members)), options: [.sortedKeys])
    }

    static func timestamp(_ date: Date) -> String { LogTimestamp.string(from: date) }
}

/// Append-only JSON-lines audit of every media decision, rotated by size: when a line would take
/// the file past `maxBytes`, `audit.log` becomes `audit.log.1` (older files shift up to
/// `keepFiles`, the oldest is deleted) and a new file starts. Lines are written with O_APPEND in
/// one `write(2)` each, so they never interleave, and a crash loses at most the line in flight.
/// Every line carries the node name (`KASConfiguration.node`) when one is given.
public final class MediaAuditLog: @unchecked Sendable {
    public let path: String
    /// The KAS node written into every line; nil writes no `node` field.
    public let node: String?
    public let maxBytes: Int
    public let keepFiles: Int
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var size: Int = 0

    public init(path: String, maxBytes: Int = 64 << 20, keepFiles: Int = 5, node: String? = nil) throws(StoreError) {
        self.path = path
        self.node = node
        self.maxBytes = max(1024, maxBytes)
        self.keepFiles = max(1, keepFiles)
        try open()
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    private func open() throws(StoreError) {
        let fd = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError(.open, "cannot open the audit log") }
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        descriptor = fd
    }

    package func record(_ event: MediaAuditEvent) {
        let line = Array((event.jsonLine(node: node) + "\n").utf8)
        lock.withLock {
            if size > 0 && size + line.count > maxBytes { rotate() }
            guard descriptor >= 0 else { return }
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 { size += written }
        }
    }

    private func rotate() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        let manager = FileManager.default
        try? manager.removeItem(atPath: "\(path).\(keepFiles)")
        if keepFiles > 1 {
            for index in stride(from: keepFiles - 1, through: 1, by: -1) where manager.fileExists(atPath: "\(path).\(index)") {
                _ = Foundation.rename("\(path).\(index)", "\(path).\(index + 1)")
            }
        }
        _ = Foundation.rename(path, "\(path).1")
        try? open()
    }
}
