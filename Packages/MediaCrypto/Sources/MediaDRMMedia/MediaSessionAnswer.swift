import MediaDRMJSON

/// The success body of `POST /media/v1/session/start` (docs/protocol.md):
/// `{"status": "started", "sessionId", "heartbeatSeconds", "expiresAt"}`. The KAS writes it, the
/// client reads it.
public struct MediaSessionAnswer: Sendable, Equatable {
    /// The session id, given to the client once (the KAS keeps only its hash).
    public var sessionID: String
    /// How often the client sends a heartbeat; nil when the answer has none (the reader's default
    /// applies).
    public var heartbeatSeconds: Int64?
    /// When the session ends without a heartbeat, in seconds since the epoch; nil when absent.
    public var expiresAt: Int64?

    public init(sessionID: String, heartbeatSeconds: Int64?, expiresAt: Int64?) {
        self.sessionID = sessionID
        self.heartbeatSeconds = heartbeatSeconds
        self.expiresAt = expiresAt
    }

    /// nil unless `status` is `started`, `sessionId` is a string, and `heartbeatSeconds` and
    /// `expiresAt` are integers where present.
    public init?(json: JSONValue) {
        guard case .object(let object) = json, case .string("started")? = object["status"],
              case .string(let id)? = object["sessionId"] else { return nil }
        var integers: [Int64?] = []
        for name in ["heartbeatSeconds", "expiresAt"] {
            guard let value = object[name] else { integers.append(nil); continue }
            guard case .number(let number) = value, let integer = number.int64 else { return nil }
            integers.append(integer)
        }
        self.init(sessionID: id, heartbeatSeconds: integers[0], expiresAt: integers[1])
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("status", .string("started")), ("sessionId", .string(sessionID))]
        if let heartbeatSeconds { members.append(("heartbeatSeconds", .number(JSONNumber(heartbeatSeconds)))) }
        if let expiresAt { members.append(("expiresAt", .number(JSONNumber(expiresAt)))) }
        return .object(JSONObject(members))
    }
}
