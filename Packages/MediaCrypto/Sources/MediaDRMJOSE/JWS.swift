import Foundation
import MediaDRMJSON

/// JWS compact serialization (RFC 7515 §7.1) with HS256, RS256 and ES256.
public enum JWS {
    /// Longest compact token read, in bytes. Bearer tokens travel in HTTP headers, which
    /// servers cap far below this; anything longer is refused before any decoding.
    public static let maximumCompactLength = 64 * 1024

    /// Signs `payload` and returns `header.payload.signature`. The protected header is `header`
    /// plus `alg` (the key's algorithm) and `kid` (the key's id, unless `header` has one).
    /// Refused: a `header` whose `alg` differs from the key's, or that carries `crit` or `b64`
    /// (which this module would refuse to verify).
    public static func sign(
        payload: some DataProtocol,
        header: JSONObject = JSONObject([]),
        key: JWSSigningKey
    ) throws(JOSEError) -> String {
        var members: [(String, JSONValue)] = [("alg", .string(key.algorithm.rawValue))]
        var hasKeyID = false
        for (name, value) in header {
            switch name {
            case "alg":
                guard case .string(let alg) = value, alg == key.algorithm.rawValue else {
                    throw JOSEError(.algorithmMismatch, "header alg differs from the signing key's algorithm")
                }
            case "crit", "b64":
                throw JOSEError(.unsupportedHeader, "crit and b64 headers are not supported")
            case "kid":
                guard case .string = value else {
                    throw JOSEError(.malformed, "header kid is not a string")
                }
                hasKeyID = true
                members.append((name, value))
            default:
                members.append((name, value))
            }
        }
        if !hasKeyID, let keyID = key.keyID {
            members.append(("kid", .string(keyID)))
        }
        let encodedHeader = JOSEBase64URL.encode(JSONWriter.write(.object(JSONObject(members))))
        let signingInput = encodedHeader + "." + JOSEBase64URL.encode(payload)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + JOSEBase64URL.encode(signature)
    }

    /// Verifies a compact JWS against configured keys and returns its protected header and
    /// payload. The token must have exactly three segments of strict base64url; the header
    /// must be a JSON object without duplicate members, with a string `alg` naming HS256, RS256
    /// or ES256 (`none` is refused) and no `crit`. Key selection: with a `kid`, the keys with
    /// that id (or, when none has it, the keys without an id); without a `kid`, every key.
    /// The token's `alg` must be the algorithm bound to the selected keys, so an RS256 key is
    /// never used as an HMAC secret.
    public static func verify(
        _ compact: String,
        keys: [JWSVerificationKey]
    ) throws(JOSEError) -> (header: JSONObject, payload: Data) {
        let token = try CompactJWS(compact)
        _ = try token.verifiedKeyIndex(in: keys)
        return (token.header, token.payload)
    }

    /// `verify(_:keys:)` with a single key.
    public static func verify(
        _ compact: String,
        key: JWSVerificationKey
    ) throws(JOSEError) -> (header: JSONObject, payload: Data) {
        try verify(compact, keys: [key])
    }

    /// Reads a token's header and payload WITHOUT verifying the signature, with all the
    /// structural checks of `verify`. Only for routing (which issuer's keys to load) and for
    /// tokens whose signature is checked by other means; never a basis for trust.
    public static func unverifiedContents(
        of compact: String
    ) throws(JOSEError) -> (header: JSONObject, payload: Data) {
        let token = try CompactJWS(compact)
        return (token.header, token.payload)
    }
}

/// A compact JWS split, decoded and structurally checked, not yet verified.
struct CompactJWS {
    let header: JSONObject
    let algorithm: JWSAlgorithm
    let keyID: String?
    let payload: Data
    let signature: Data
    let signingInput: [UInt8]

    init(_ compact: String) throws(JOSEError) {
        let bytes = Array(compact.utf8)
        guard bytes.count <= JWS.maximumCompactLength else {
            throw JOSEError(.malformed, "token is longer than the limit")
        }
        var dots: [Int] = []
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
            dots.append(index)
            guard dots.count <= 2 else { throw JOSEError(.malformed, "token does not have three segments") }
        }
        guard dots.count == 2 else { throw JOSEError(.malformed, "token does not have three segments") }
        let headerSegment = bytes[0..<dots[0]]
        let payloadSegment = bytes[(dots[0] + 1)..<dots[1]]
        let signatureSegment = bytes[(dots[1] + 1)...]

        guard !headerSegment.isEmpty else { throw JOSEError(.malformed, "token header segment is empty") }
        let headerBytes = try Self.decode(headerSegment, "token header is not base64url")
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(headerBytes)
        } catch {
            throw JOSEError(.malformed, "token header is not valid JSON or repeats a member")
        }
        guard case .object(let header) = parsed else {
            throw JOSEError(.malformed, "token header is not a JSON object")
        }
        let wrongType = JOSEError(.malformed, "token header member has the wrong JSON type")
        guard let alg = try header.joseString("alg", wrongType) else {
            throw JOSEError(.malformed, "token header has no alg")
        }
        guard let algorithm = JWSAlgorithm(rawValue: alg) else {
            throw JOSEError(.unsupportedAlgorithm, "token alg is none or not supported")
        }
        // RFC 7515 §4.1.11: a recipient that does not understand a critical extension must
        // refuse the token. None are implemented, so any `crit` is refused; `b64` (RFC 7797)
        // changes what is signed and is refused with or without `crit`.
        guard header["crit"] == nil else {
            throw JOSEError(.unsupportedHeader, "token has a crit header")
        }
        if let b64 = header["b64"], b64 != .bool(true) {
            throw JOSEError(.unsupportedHeader, "token has an unencoded-payload header")
        }
        self.header = header
        self.algorithm = algorithm
        self.keyID = try header.joseString("kid", wrongType)
        self.payload = try Self.decode(payloadSegment, "token payload is not base64url")
        self.signature = try Self.decode(signatureSegment, "token signature is not base64url")
        self.signingInput = Array(bytes[0..<dots[1]])
    }

    private static func decode(_ segment: ArraySlice<UInt8>, _ reason: String) throws(JOSEError) -> Data {
        guard !segment.isEmpty else { return Data() }
        // Every byte is checked against the alphabet first, so the String is pure ASCII.
        for byte in segment where !JOSEBase64URL.isAlphabet(byte) {
            throw JOSEError(.malformed, reason)
        }
        return try JOSEBase64URL.decode(String(decoding: segment, as: UTF8.self), JOSEError(.malformed, reason))
    }

    /// The indices of the keys this token may be verified with, in order.
    func candidateIndices(in keys: [JWSVerificationKey]) throws(JOSEError) -> [Int] {
        guard !keys.isEmpty else { throw JOSEError(.unknownKey, "no verification keys are configured") }
        var selected: [Int]
        if let keyID {
            selected = keys.indices.filter { keys[$0].keyID == keyID }
            if selected.isEmpty { selected = keys.indices.filter { keys[$0].keyID == nil } }
            guard !selected.isEmpty else { throw JOSEError(.unknownKey, "no key has the token's kid") }
        } else {
            selected = Array(keys.indices)
        }
        let allowed = selected.filter { keys[$0].algorithm == algorithm }
        guard !allowed.isEmpty else {
            throw JOSEError(.algorithmMismatch, "token alg is not the algorithm of its key")
        }
        return allowed
    }

    /// Verifies the signature with the selected keys; returns the index of the key that did.
    func verifiedKeyIndex(in keys: [JWSVerificationKey]) throws(JOSEError) -> Int {
        for index in try candidateIndices(in: keys)
        where keys[index].isValidSignature(signature, for: signingInput) {
            return index
        }
        throw JOSEError(.badSignature, "token signature does not verify")
    }
}
