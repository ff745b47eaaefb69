/// A trusted token issuer, as one entry of the configuration's `issuers` array:
///
/// ```json
/// {"issuer": "https://idp.example.com", "audience": "https://kas.example.com", "jwksFile": "idp-jwks.json"}
/// ```
/// - `issuer` (string, required): the exact `iss` of its tokens.
/// - `audience` (string or non-empty array of strings, required): a token's `aud` must name one.
/// - exactly one key source:
///   - `jwksFile`: a JWK Set (RS256 / ES256 keys, selected by the token's `kid`; keys of other
///     types or for other uses, such as encryption keys an IdP also publishes, are skipped);
///   - `pemFile`: one RSA (RS256) or P-256 (ES256) public key in PEM;
///   - `hs256SecretFile`: a file whose bytes are the HS256 secret (at least 32 bytes);
///   - `hs256SecretEnv`: the name of an environment variable holding the HS256 secret.
///   Secrets are never written in the configuration file itself.
/// Relative file paths are resolved against the configuration file's directory.
public struct IssuerConfiguration: Sendable, Equatable {
    public enum KeySource: Sendable, Equatable {
        case jwksFile(String)
        case pemFile(String)
        case hs256SecretFile(String)
        case hs256SecretEnvironment(String)
    }

    public var issuer: String
    public var audiences: [String]
    public var keySource: KeySource

    public init(issuer: String, audiences: [String], keySource: KeySource) {
        self.issuer = issuer
        self.audiences = audiences
        self.keySource = keySource
    }
}
