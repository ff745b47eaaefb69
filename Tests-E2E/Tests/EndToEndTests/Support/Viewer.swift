import MediaDRMCrypto
import MediaDRMEncoding
import Foundation

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
    func keyRequest(asset: String, component: String, sessionID: String, manifest: Data) throws -> (Curl.Response, SymmetricKey?) {
        let ephemeral = try P256.KeyAgreement.PrivateKey()
        let body: [String: Any] = ["assetId": asset, "component": component, "sessionId": sessionID,
                                   "tdfManifest": Base64.encode(manifest),
                                   "clientPublicKey": ephemeral.publicKey.pemRepresentation]
        let response = try Curl.request("POST", kas.baseURL + "/media/v1/key-request", token: token, json: body, caFile: kas.caFile)
        guard response.status == 200, let json = response.json,
              let wrapped = json["wrappedKey"] as? String, let peerPEM = json["sessionPublicKey"] as? String else {
            return (response, nil)
        }
        let peer = try P256.KeyAgreement.PublicKey(pemRepresentation: peerPEM)
        let wrapping = try ephemeral.sharedSecretFromKeyAgreement(with: peer)
            .hkdfDerivedSymmetricKey(salt: SHA256.hash(data: Data("TDF".utf8)), sharedInfo: Data(), outputByteCount: 32)
        let key = try AES.GCM.open(try AES.GCM.SealedBox(combined: try Base64.decode(wrapped)), using: wrapping)
        guard key.count == 16 else { throw TestFailure("the KAS delivered a \(key.count)-byte content key") }
        return (response, SymmetricKey(data: key))
    }
}
