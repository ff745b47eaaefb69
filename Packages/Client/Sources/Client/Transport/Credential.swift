/// A bearer token. It can only reach the wire as the `Authorization` header of a request sent by
/// `HTTPClient`; printing, interpolating, dumping or mirroring it shows no part of the token.
public struct Credential: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let token: String

    /// Accepts the RFC 6750 `b64token` alphabet (JWTs fit), so the value can never split or
    /// extend the header line it is placed in.
    public init(bearerToken: String) throws(TransportError) {
        let bytes = Array(bearerToken.utf8)
        guard !bytes.isEmpty, bytes.count <= 16 << 10 else {
            throw TransportError(.invalidRequest, "the bearer token is empty or longer than 16 KiB")
        }
        var sawPadding = false
        for byte in bytes {
            let allowed: Bool
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                 UInt8(ascii: "+"), UInt8(ascii: "/"):
                allowed = !sawPadding
            case UInt8(ascii: "="):
                sawPadding = true
                allowed = true
            default:
                allowed = false
            }
            guard allowed else {
                throw TransportError(.invalidRequest, "the bearer token has a character outside the RFC 6750 token alphabet")
            }
        }
        token = bearerToken
    }

    var authorizationHeaderLine: String { "Authorization: Bearer " + token }

    public var description: String { "Credential(bearer, redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
