/// A trusted token issuer: the `iss` value its tokens carry and the keys that verify them.
public struct JWTIssuer: Sendable {
    public var identifier: String
    public var keys: [JWSVerificationKey]

    public init(_ identifier: String, keys: [JWSVerificationKey]) {
        self.identifier = identifier
        self.keys = keys
    }
}
