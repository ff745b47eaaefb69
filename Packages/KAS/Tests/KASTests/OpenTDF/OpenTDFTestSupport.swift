import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMTDF

/// Keys and TDFs shared by the OpenTDF tests (RSA generation is slow; make each key once).
enum OpenTDFFixtures {
    static let kasRSA = fixture { try RSA.PrivateKey(keySize: 2048) }
    static let kasRSARetired = fixture { try RSA.PrivateKey(keySize: 2048) }
    static let kasEC = fixture { try ECP256.KeyAgreement.PrivateKey() }
    static let clientRSA = fixture { try RSA.PrivateKey(keySize: 2048) }
    static let clientEC = fixture { try ECP256.KeyAgreement.PrivateKey() }
    static let dpopKey = fixture { try ECP256.Signing.PrivateKey() }

    static func fixture<T>(_ make: () throws -> T) -> T {
        do {
            return try make()
        } catch {
            preconditionFailure("test fixture could not be made: \(error)")
        }
    }

    static let kasURL = "https://kas.example.com/kas"

    /// Active RSA key "r2", a retired RSA key "r1", and EC key "e1".
    static var keys: OpenTDFStaticKeyProvider {
        OpenTDFStaticKeyProvider([
            .init(kid: "r2", key: .rsa(kasRSA)),
            .init(kid: "e1", key: .ec(kasEC)),
            .init(kid: "r1", key: .rsa(kasRSARetired)),
        ])
    }

    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func service(media: OpenTDFRewrapService.MediaPolicyHandling = .refuse) -> OpenTDFRewrapService {
        OpenTDFRewrapService(keys: keys, clock: { now }, mediaPolicies: media)
    }

    /// A Standard TDF made by the TDF module; returns the archive's manifest and plaintext.
    static func tdf(kasKey: KASPublicKey, kid: String?, policy: TDFPolicy,
                    bindingForm: TDFBinding.Form = .hex) throws -> (manifest: TDFManifest, archive: Data, plaintext: Data) {
        let plaintext = Data("the quick brown fox \(UUID().uuidString)".utf8)
        let options = TDFEncryptOptions(kasURL: kasURL, kasPublicKey: kasKey, kid: kid, policy: policy,
                                        bindingForm: bindingForm)
        let archive = try TDF.encrypt(plaintext, options: options)
        let reader = try TDFArchiveReader(data: archive)
        return (reader.manifest, archive, plaintext)
    }

    static var rsaKASKey: KASPublicKey { .rsa(kasRSA.publicKey) }
    static var ecKASKey: KASPublicKey { .ec(kasEC.publicKey) }

    /// One v2 policy request entry: `{algorithm, policy: {id, body}, keyAccessObjects}`.
    static func policyRequest(id: String, policyBase64: String, objects: [(String, JSONValue)],
                              algorithm: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("keyAccessObjects", .array(objects.map { id, object in
                .object(JSONObject([("keyAccessObjectId", .string(id)), ("keyAccessObject", object)]))
            })),
            ("policy", .object(JSONObject([("id", .string(id)), ("body", .string(policyBase64))]))),
        ]
        if let algorithm { members.append(("algorithm", .string(algorithm))) }
        return .object(JSONObject(members))
    }

    static func requestBody(clientPublicKey: String, requests: [JSONValue]) -> JSONObject {
        JSONObject([("clientPublicKey", .string(clientPublicKey)), ("requests", .array(requests))])
    }

    /// A signed request token as OpenTDF clients make it: `{requestBody, iat, exp}` signed by a
    /// DPoP key the KAS does not know.
    static func signedRequestToken(_ body: JSONObject, iat: Date = now, exp: Date? = now.addingTimeInterval(7200),
                                   key: JWSSigningKey? = nil) throws -> String {
        var claims: [(String, JSONValue)] = [
            ("requestBody", .string(String(decoding: JSONWriter.write(.object(body)), as: UTF8.self))),
            ("iat", JWT.numericDate(iat)),
        ]
        if let exp { claims.append(("exp", JWT.numericDate(exp))) }
        return try JWT.sign(claims: JSONObject(claims), key: key ?? JWSSigningKey(p256: dpopKey))
    }

    static func unwrapForClient(_ wrapped: Data, rsa: Bool, sessionPublicKey: String) throws -> SecretKey {
        if rsa {
            return SecretKey(data: try clientRSA.decrypt(wrapped, padding: .oaepSHA1))
        }
        let session = try ECP256.KeyAgreement.PublicKey(pemRepresentation: sessionPublicKey)
        return try ECWrap.unwrap(wrapped, ephemeralPublicKey: session, with: clientEC)
    }
}
