import MediaDRMJSON

/// The body of `POST /media/v1/rewrap` (docs/protocol.md): the live media session of a tdf-hls
/// playback plus the OpenTDF bulk rewrap request (v2 `UnsignedRewrapRequest` shape: the client's
/// ephemeral public key and, per policy, the segments' key access objects). The client writes it,
/// the KAS accepts exactly its members.
public struct MediaRewrapBody: Sendable, Equatable {
    /// The route (on the key service origin).
    public static let path = "/media/v1/rewrap"

    /// The member names, each written once.
    public static let members: Set<String> = ["sessionId", "clientPublicKey", "requests"]

    /// Key access objects one request may carry, over all its policies. A 3-hour title of 6 s
    /// segments (1,800 keys per rendition) takes a handful of requests; a larger request is
    /// refused 413 before any key is unwrapped.
    public static let maximumKeyAccessObjects = 512

    /// Distinct policy texts one request may carry (a tdf-hls stream has one).
    public static let maximumPolicies = 4

    public var sessionID: String
    /// SPKI PEM of the client's ephemeral P-256 key, one per request.
    public var clientPublicKeyPEM: String
    /// `[{algorithm, policy: {id, body}, keyAccessObjects: [{keyAccessObjectId, keyAccessObject}]}]`.
    public var requests: [JSONValue]

    public init(sessionID: String, clientPublicKeyPEM: String, requests: [JSONValue]) {
        self.sessionID = sessionID
        self.clientPublicKeyPEM = clientPublicKeyPEM
        self.requests = requests
    }

    public var jsonValue: JSONValue {
        .object(JSONObject([
            ("clientPublicKey", .string(clientPublicKeyPEM)), ("requests", .array(requests)), ("sessionId", .string(sessionID)),
        ]))
    }
}
