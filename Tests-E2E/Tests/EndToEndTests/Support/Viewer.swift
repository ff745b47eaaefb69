import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMTDF

/// A viewer speaking the KAS media protocol on the open path, written from docs/protocol.md
/// with the curl CLI and the Crypto primitives (not the Client library): an independent
/// reference for what the player does, and the tool for the refusal cases.
struct Viewer {
    let kas: KASFixture
    let token: String

    func startSession(asset: String, playbackID: String, component: String? = nil) throws -> Curl.Response {
        var body: [String: Any] = ["assetId": asset, "protocol": "tdf", "playbackId": playbackID]
        if let component { body["component"] = component }
        return try Curl.request("POST", kas.baseURL + "/media/v1/session/start", token: token, json: body, caFile: kas.caFile)
    }

    func endSession(_ id: String) throws -> Curl.Response {
        try Curl.request("DELETE", kas.baseURL + "/media/v1/session/\(id)", token: token, caFile: kas.caFile)
    }

    /// A key request with a fresh ephemeral P-256 key; the key is unwrapped (ECDH, HKDF-SHA256
    /// with salt SHA-256("TDF"), AES-256-GCM) when the answer is 200.
    func keyRequest(asset: String, component: String, sessionID: String, manifest: Data) throws -> (Curl.Response, SecretKey?) {
        let ephemeral = try ECP256.KeyAgreement.PrivateKey()
        let body: [String: Any] = ["assetId": asset, "component": component, "sessionId": sessionID,
                                   "tdfManifest": Base64.encode(manifest),
                                   "clientPublicKey": ephemeral.publicKey.pemRepresentation]
        let response = try Curl.request("POST", kas.baseURL + "/media/v1/key-request", token: token, json: body, caFile: kas.caFile)
        guard response.status == 200, let json = response.json,
              let wrapped = json["wrappedKey"] as? String, let peerPEM = json["sessionPublicKey"] as? String else {
            return (response, nil)
        }
        let key = try Self.unwrap(wrapped, sessionPublicKeyPEM: peerPEM, with: ephemeral)
        guard key.count == 16 else { throw TestFailure("the KAS delivered a \(key.count)-byte content key") }
        return (response, SecretKey(data: key))
    }

    /// One policy of a media rewrap: its text as the segments carry it and key access objects by id.
    struct RewrapPolicy {
        let policy: String
        let objects: [(id: String, keyAccess: KeyAccessObject)]
    }

    /// `POST /media/v1/rewrap` with a fresh ephemeral P-256 key; every `permit` result's key is
    /// unwrapped (as for a key request) when the answer is 200.
    func rewrap(sessionID: String, _ policies: [RewrapPolicy]) throws -> (Curl.Response, [String: SecretKey]) {
        let ephemeral = try ECP256.KeyAgreement.PrivateKey()
        var requests: [Any] = []
        for (index, entry) in policies.enumerated() {
            let objects: [Any] = try entry.objects.map { id, keyAccess in
                ["keyAccessObjectId": id,
                 "keyAccessObject": try JSONSerialization.jsonObject(with: JSONWriter.write(keyAccess.jsonValue))]
            }
            requests.append(["algorithm": "ec:secp256r1", "policy": ["id": "policy-\(index)", "body": entry.policy],
                             "keyAccessObjects": objects])
        }
        let body: [String: Any] = ["sessionId": sessionID, "clientPublicKey": ephemeral.publicKey.pemRepresentation,
                                   "requests": requests]
        let response = try Curl.request("POST", kas.baseURL + "/media/v1/rewrap", token: token, json: body, caFile: kas.caFile)
        guard response.status == 200, let json = response.json, let peerPEM = json["sessionPublicKey"] as? String,
              let answers = json["responses"] as? [[String: Any]] else { return (response, [:]) }
        var keys: [String: SecretKey] = [:]
        for answer in answers {
            for result in answer["results"] as? [[String: Any]] ?? [] {
                guard result["status"] as? String == "permit", let id = result["keyAccessObjectId"] as? String,
                      let wrapped = result["kasWrappedKey"] as? String else { continue }
                keys[id] = SecretKey(data: try Self.unwrap(wrapped, sessionPublicKeyPEM: peerPEM, with: ephemeral))
            }
        }
        return (response, keys)
    }

    /// The open path's key wrap (docs/protocol.md): ECDH with the KAS's ephemeral key, HKDF-SHA256
    /// with salt SHA-256("TDF") to 32 bytes, AES-256-GCM over `nonce ‖ ciphertext ‖ tag`.
    static func unwrap(_ wrapped: String, sessionPublicKeyPEM: String, with ephemeral: ECP256.KeyAgreement.PrivateKey) throws -> Data {
        let peer = try ECP256.KeyAgreement.PublicKey(pemRepresentation: sessionPublicKeyPEM)
        let wrapping = try ephemeral.sharedSecretFromKeyAgreement(with: peer)
            .hkdfDerivedSymmetricKey(salt: SHA256Digest.hash(data: Data("TDF".utf8)), sharedInfo: Data(), outputByteCount: 32)
        return try AESCipher.GCM.open(try AESCipher.GCM.SealedBox(combined: try Base64.decode(wrapped)), using: wrapping)
    }
}
