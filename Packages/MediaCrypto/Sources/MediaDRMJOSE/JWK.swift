import Foundation
import MediaDRMCrypto
import MediaDRMJSON

/// A JSON Web Key (RFC 7517) of the kinds JWS here can use: `RSA` (n, e), `EC` on `P-256`
/// (x, y) and `oct` (k). Other key types and curves are refused. Private members (`d`, `p`,
/// `q`, `dp`, `dq`, `qi`, `oth`) are ignored: a JWK read here is only ever a verification key,
/// and private material is neither kept nor exported.
public struct JWK: Sendable, CustomStringConvertible {
    public enum KeyType: String, Sendable, Hashable {
        case rsa = "RSA"
        case ec = "EC"
        case oct = "oct"
    }

    enum Material: Sendable {
        case rsa(RSA.PublicKey)
        case p256(ECP256.Signing.PublicKey)
        case oct(SecretKey)
    }

    let material: Material
    public let keyID: String?
    /// The `alg` member exactly as written (it may name a non-JWS algorithm such as A128KW).
    public let algorithmName: String?
    /// The `use` member (`sig`, `enc` or another value).
    public let use: String?
    /// The `key_ops` member.
    public let keyOperations: [String]?

    public var keyType: KeyType {
        switch material {
        case .rsa: .rsa
        case .p256: .ec
        case .oct: .oct
        }
    }

    /// `alg` as a JWS algorithm, when it names one this module implements.
    public var algorithm: JWSAlgorithm? { algorithmName.flatMap(JWSAlgorithm.init(rawValue:)) }

    public var rsaPublicKey: RSA.PublicKey? {
        if case .rsa(let key) = material { return key }
        return nil
    }

    public var p256PublicKey: ECP256.Signing.PublicKey? {
        if case .p256(let key) = material { return key }
        return nil
    }

    public var symmetricKey: SecretKey? {
        if case .oct(let key) = material { return key }
        return nil
    }

    /// The public JWK of an RSA key, for a JWKS that verifiers fetch: `alg: RS256`, `use: sig`.
    public init(publicKey: RSA.PublicKey, keyID: String? = nil) {
        self.material = .rsa(publicKey)
        self.keyID = keyID
        self.algorithmName = JWSAlgorithm.rs256.rawValue
        self.use = "sig"
        self.keyOperations = nil
    }

    /// The public JWK of a P-256 key: `alg: ES256`, `use: sig`.
    public init(publicKey: ECP256.Signing.PublicKey, keyID: String? = nil) {
        self.material = .p256(publicKey)
        self.keyID = keyID
        self.algorithmName = JWSAlgorithm.es256.rawValue
        self.use = "sig"
        self.keyOperations = nil
    }

    /// Parses a JWK from JSON text with the strict parser (duplicate members refused).
    public init(jsonData: some DataProtocol) throws(JOSEError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(jsonData)
        } catch {
            throw JOSEError(.malformed, "JWK is not valid JSON")
        }
        guard case .object(let object) = value else {
            throw JOSEError(.malformed, "JWK is not a JSON object")
        }
        try self.init(jsonObject: object)
    }

    /// Reads a JWK from a parsed JSON object.
    public init(jsonObject object: JSONObject) throws(JOSEError) {
        let wrongType = JOSEError(.malformed, "JWK member has the wrong JSON type")
        guard let kty = try object.joseString("kty", wrongType) else {
            throw JOSEError(.invalidKey, "JWK has no kty")
        }
        keyID = try object.joseString("kid", wrongType)
        algorithmName = try object.joseString("alg", wrongType)
        use = try object.joseString("use", wrongType)
        keyOperations = try object.joseStringArray("key_ops", wrongType)
        if let ops = keyOperations, Set(ops).count != ops.count {
            throw JOSEError(.malformed, "JWK key_ops has duplicate values")
        }

        switch KeyType(rawValue: kty) {
        case .rsa:
            let n = try Self.requiredBytes(object, "n")
            let e = try Self.requiredBytes(object, "e")
            do {
                material = .rsa(try RSA.PublicKey(modulus: n, publicExponent: e))
            } catch {
                throw JOSEError(.invalidKey, "JWK RSA key is invalid or under 2048 bits")
            }
        case .ec:
            guard let crv = try object.joseString("crv", wrongType) else {
                throw JOSEError(.invalidKey, "JWK EC key has no crv")
            }
            guard crv == "P-256" else { throw JOSEError(.invalidKey, "JWK EC curve is not P-256") }
            let x = try Self.requiredBytes(object, "x")
            let y = try Self.requiredBytes(object, "y")
            // RFC 7518 §6.2.1.2: coordinates are full length, never shortened.
            guard x.count == 32, y.count == 32 else {
                throw JOSEError(.invalidKey, "JWK P-256 coordinates must be 32 bytes each")
            }
            do {
                material = .p256(try ECP256.Signing.PublicKey(rawRepresentation: x + y))
            } catch {
                throw JOSEError(.invalidKey, "JWK EC point is not on P-256")
            }
        case .oct:
            let k = try Self.requiredBytes(object, "k")
            guard !k.isEmpty else { throw JOSEError(.invalidKey, "JWK oct key is empty") }
            material = .oct(SecretKey(data: k))
        case nil:
            throw JOSEError(.invalidKey, "JWK kty is not RSA, EC or oct")
        }
    }

    private static func requiredBytes(_ object: JSONObject, _ name: String) throws(JOSEError) -> Data {
        guard let text = try object.joseString(name, JOSEError(.malformed, "JWK member has the wrong JSON type")) else {
            throw JOSEError(.invalidKey, "JWK is missing a required key member")
        }
        return try JOSEBase64URL.decode(text, JOSEError(.invalidKey, "JWK key member is not base64url"))
    }

    /// The verification key this JWK describes. Refused: `use` other than `sig`, `key_ops`
    /// without `verify`, an `alg` that is not the one JWS algorithm of the key type (RSA: RS256,
    /// EC P-256: ES256, oct: HS256), and `oct` keys that fail the HS256 key rules.
    public func verificationKey() throws(JOSEError) -> JWSVerificationKey {
        if let use, use != "sig" {
            throw JOSEError(.invalidKey, "JWK use is not sig")
        }
        if let ops = keyOperations, !ops.contains("verify") {
            throw JOSEError(.invalidKey, "JWK key_ops does not allow verify")
        }
        let expected: JWSAlgorithm = switch material {
        case .rsa: .rs256
        case .p256: .es256
        case .oct: .hs256
        }
        if let algorithmName, algorithmName != expected.rawValue {
            if JWSAlgorithm(rawValue: algorithmName) == nil {
                throw JOSEError(.unsupportedAlgorithm, "JWK alg is not a supported JWS algorithm")
            }
            throw JOSEError(.invalidKey, "JWK alg does not match its key type")
        }
        switch material {
        case .rsa(let key): return JWSVerificationKey(rsa: key, keyID: keyID)
        case .p256(let key): return JWSVerificationKey(p256: key, keyID: keyID)
        case .oct(let key): return try JWSVerificationKey(hmac: key, keyID: keyID)
        }
    }

    /// The members that define the key (RFC 7638 §3.2), as base64url strings.
    private var keyMembers: [(String, String)] {
        switch material {
        case .rsa(let key):
            [("e", JOSEBase64URL.encode(key.publicExponent)), ("kty", "RSA"), ("n", JOSEBase64URL.encode(key.modulus))]
        case .p256(let key):
            [("crv", "P-256"), ("kty", "EC"),
             ("x", JOSEBase64URL.encode(key.rawRepresentation.prefix(32))),
             ("y", JOSEBase64URL.encode(key.rawRepresentation.suffix(32)))]
        case .oct(let key):
            [("k", key.withUnsafeBytes { JOSEBase64URL.encode(Array($0)) }), ("kty", "oct")]
        }
    }

    /// The JWK as a JSON object: the key members plus `kid`, `alg`, `use`, `key_ops` when set.
    /// Public keys carry public members only; an `oct` key carries its secret `k`.
    public var jsonObject: JSONObject {
        var members: [(String, JSONValue)] = keyMembers.map { ($0.0, JSONValue.string($0.1)) }
        if let keyID { members.append(("kid", .string(keyID))) }
        if let algorithmName { members.append(("alg", .string(algorithmName))) }
        if let use { members.append(("use", .string(use))) }
        if let keyOperations { members.append(("key_ops", .array(keyOperations.map { .string($0) }))) }
        return JSONObject(members)
    }

    /// Compact JSON with sorted keys.
    public var jsonData: Data { JSONWriter.write(.object(jsonObject)) }

    /// The RFC 7638 JWK thumbprint: SHA-256 over the required members in lexicographic order,
    /// without whitespace. A stable key id for keys that have none.
    public var thumbprint: Data {
        let body = keyMembers.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",")
        return SHA256Digest.hash(data: Data("{\(body)}".utf8))
    }

    public var description: String {
        "JWK(\(keyType.rawValue)\(keyID.map { ", kid: \($0)" } ?? ""))"
    }
}
