// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMOffline
import MediaDRMTDF
import Testing
@testable import Client

/// The player's offline licence checks with real ES256 signatures and real key wrapping
/// (MediaDRMOffline), each refusal with its own code. The end-to-end suite makes the same
/// refusals against licences a real KAS issued (Tests-E2E OfflineTests).
@Suite struct OfflineLicenseCheckTests {
    static let asset = "0f8fad5b-d9cb-469f-a165-70867728950e"
    static let now: Int64 = 1_800_000_000

    struct Issued {
        let compact: String
        let jwks: JSONObject
        let device: ECP256.KeyAgreement.PrivateKey
        /// Each component with the keyBinding of the key the licence wraps (fps-v2 §5.3).
        let components: [(kind: MediaComponentKind, keyBinding: String)]
    }

    static func issue(window: Int64? = 3600, issuedAt: Int64 = now, expiresAt: Int64 = now + 86_400,
                      device: ECP256.KeyAgreement.PrivateKey? = nil) throws -> Issued {
        let signer = try ECP256.Signing.PrivateKey()
        let signing = JWSSigningKey(p256: signer, keyID: "licence-1")
        let device = try device ?? ECP256.KeyAgreement.PrivateKey()
        let deviceKey = try OfflineDeviceKey(device.publicKey)
        var components: [(kind: MediaComponentKind, keyBinding: String)] = []
        let keys = try ["video", "audio"].map { name in
            let kind = try #require(MediaComponentKind(rawValue: name))
            let key = SecretKey(data: try SecureRandom.bytes(count: 16))
            components.append((kind, TDFBinding.keyBinding(componentID: kind.id, key: key)))
            return try OfflineLicenseKey(component: kind, keyID: "ab", key: key, device: deviceKey)
        }
        let license = OfflineLicense(asset: asset, subject: "alice", licenseID: "lid-1", deviceThumbprint: deviceKey.thumbprint,
                                     issuedAt: issuedAt, expiresAt: expiresAt, playbackWindowSeconds: window,
                                     rentalEndsAt: nil, keys: keys)
        let jwks = JWKSet(keys: [JWK(publicKey: signer.publicKey, keyID: "licence-1")]).jsonObject
        return Issued(compact: try license.signed(with: signing), jwks: jwks, device: device, components: components)
    }

    @Test func aGoodLicenceOpensEveryKey() throws {
        let issued = try Self.issue()
        let check = try OfflineLicenseCheck(compact: issued.compact, signingKeys: issued.jwks, deviceKey: issued.device,
                                            assetID: Self.asset)
        try check.checkTimes(now: Self.now + 60, firstPlayedAt: nil)
        let keys = try check.contentKeys(deviceKey: issued.device, components: issued.components)
        #expect(keys.count == 2 && keys.values.allSatisfy { $0.byteCount == 16 })
        // Another package's keyBinding (another key for the same component): refused.
        let other = try Self.issue()
        #expect(throws: OfflineError(.licenseAsset, "")) {
            try check.contentKeys(deviceKey: issued.device, components: other.components)
        }
    }

    @Test func signatureDeviceAndAssetRefusals() throws {
        let issued = try Self.issue()
        // Signed by another key (the kept JWKS is another issue's).
        let other = try Self.issue()
        #expect(throws: OfflineError(.licenseSignature, "")) {
            try OfflineLicenseCheck(compact: issued.compact, signingKeys: other.jwks, deviceKey: issued.device, assetID: Self.asset)
        }
        // A changed payload: a later exp written into the signed token.
        let parts = issued.compact.split(separator: ".").map(String.init)
        let signed = try #require(try JSONParser.parse(try Base64URL.decode(parts[1])).object)
        let payload = JSONObject(signed.map { name, value in
            (name, name == "exp" ? JSONValue.number(JSONNumber(Self.now + 10 * 86_400)) : value)
        })
        let changed = [parts[0], Base64URL.encode(JSONWriter.write(.object(payload))), parts[2]].joined(separator: ".")
        #expect(throws: OfflineError(.licenseSignature, "")) {
            try OfflineLicenseCheck(compact: changed, signingKeys: issued.jwks, deviceKey: issued.device, assetID: Self.asset)
        }
        // Another library's device key.
        #expect(throws: OfflineError(.licenseDevice, "")) {
            try OfflineLicenseCheck(compact: issued.compact, signingKeys: issued.jwks, deviceKey: try ECP256.KeyAgreement.PrivateKey(),
                                    assetID: Self.asset)
        }
        // Another asset.
        #expect(throws: OfflineError(.licenseAsset, "")) {
            try OfflineLicenseCheck(compact: issued.compact, signingKeys: issued.jwks, deviceKey: issued.device,
                                    assetID: "1f8fad5b-d9cb-469f-a165-70867728950e")
        }
    }

    @Test func timeRefusals() throws {
        let issued = try Self.issue(window: 3600)
        let check = try OfflineLicenseCheck(compact: issued.compact, signingKeys: issued.jwks, deviceKey: issued.device,
                                            assetID: Self.asset)
        #expect(throws: OfflineError(.licenseExpired, "")) { try check.checkTimes(now: Self.now + 86_400, firstPlayedAt: nil) }
        #expect(throws: OfflineError(.playbackWindowOver, "")) {
            try check.checkTimes(now: Self.now + 7200, firstPlayedAt: Self.now + 60)
        }
        try check.checkTimes(now: Self.now + 3000, firstPlayedAt: Self.now + 60)
        #expect(throws: OfflineError(.clockSetBack, "")) { try check.checkTimes(now: Self.now - 3600, firstPlayedAt: nil) }
    }
}
