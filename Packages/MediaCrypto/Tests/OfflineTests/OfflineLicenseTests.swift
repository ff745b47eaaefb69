import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMOffline
import Testing

@Suite struct OfflineLicenseTests {
    private let contentKey = SecretKey(data: Data((0..<16).map { UInt8($0) }))

    private func license(device: OfflineDeviceKey) throws -> OfflineLicense {
        let key = try OfflineLicenseKey(component: .video, keyID: "00ff", key: contentKey, device: device)
        return OfflineLicense(asset: "7f1c3a52-0d7e-4c1b-9b7a-2f3e4d5c6b7a", subject: "alice", licenseID: "lid-1",
                              deviceThumbprint: device.thumbprint, issuedAt: 1_000, expiresAt: 2_000,
                              playbackWindowSeconds: 600, rentalEndsAt: 1_900, keys: [key])
    }

    private func signingKey(_ kid: String) throws -> JWSSigningKey {
        JWSSigningKey(p256: try ECP256.Signing.PrivateKey(), keyID: kid)
    }

    @Test func signedLicenceVerifiesAndItsKeyOpensOnlyOnItsDevice() throws {
        let devicePrivate = try ECP256.KeyAgreement.PrivateKey()
        let device = try OfflineDeviceKey(devicePrivate.publicKey)
        let payload = try license(device: device)
        let signer = try signingKey("sig-1")
        let compact = try payload.signed(with: signer)
        let published = JWKSet(keys: [try #require(signer.verificationKey.jwk)])
        let read = try OfflineLicense.verified(compact, signingKeys: published)
        #expect(read == payload)
        let header = try JWS.unverifiedContents(of: compact).header
        #expect(header["typ"] == .string(OfflineLicense.type) && header["kid"] == .string("sig-1"))
        #expect(try read.key(for: .video)?.unwrap(with: devicePrivate) == contentKey)
        let other = try ECP256.KeyAgreement.PrivateKey()
        #expect(throws: OfflineLicenseError(.keyUnwrapFailed, "")) { try read.key(for: .video)?.unwrap(with: other) }
    }

    @Test func aChangedPayloadOrAnotherKeyIsRefused() throws {
        let device = try OfflineDeviceKey(try ECP256.KeyAgreement.PrivateKey().publicKey)
        let signer = try signingKey("sig-1")
        let compact = try license(device: device).signed(with: signer)
        let published = JWKSet(keys: [try #require(signer.verificationKey.jwk)])

        var tampered = try license(device: device)
        tampered.expiresAt = 9_999
        let parts = compact.split(separator: ".")
        let forged = "\(parts[0]).\(Base64URL.encode(JSONWriter.write(tampered.jsonValue))).\(parts[2])"
        #expect(throws: OfflineLicenseError(.badSignature, "")) { try OfflineLicense.verified(forged, signingKeys: published) }

        let impostor = try signingKey("sig-1")
        let byImpostor = try license(device: device).signed(with: impostor)
        #expect(throws: OfflineLicenseError(.badSignature, "")) { try OfflineLicense.verified(byImpostor, signingKeys: published) }
        let unknownKid = try license(device: device).signed(with: try signingKey("sig-2"))
        #expect(throws: OfflineLicenseError(.badSignature, "")) { try OfflineLicense.verified(unknownKid, signingKeys: published) }

        // The right key, but a token of another type (an ES256 JWT that is not a licence).
        let jwt = try JWS.sign(payload: JSONWriter.write(try license(device: device).jsonValue), key: signer)
        #expect(throws: OfflineLicenseError(.badSignature, "")) { try OfflineLicense.verified(jwt, signingKeys: published) }
    }

    @Test func deviceKeyReadsPEMAndJWKWithOneThumbprint() throws {
        let key = try ECP256.KeyAgreement.PrivateKey().publicKey
        let fromPEM = try OfflineDeviceKey(json: .string(key.pemRepresentation))
        let point = try ECP256.Signing.PublicKey(rawRepresentation: key.rawRepresentation)
        let jwk = JWK(publicKey: point)
        let fromJWK = try OfflineDeviceKey(json: .object(jwk.jsonObject))
        #expect(fromPEM.thumbprint == fromJWK.thumbprint && fromPEM.thumbprint == Base64URL.encode(jwk.thumbprint))
        #expect(fromPEM.thumbprint.count == 43)
        #expect(throws: OfflineLicenseError(.invalidDeviceKey, "")) { try OfflineDeviceKey(json: .string("not a key")) }
        #expect(throws: OfflineLicenseError(.invalidDeviceKey, "")) { try OfflineDeviceKey(json: .number(1)) }
    }

    @Test func messagesRoundTripAndRefuseUnknownMembers() throws {
        let device = try OfflineDeviceKey(try ECP256.KeyAgreement.PrivateKey().publicKey)
        let request = OfflineLicenseRequest(assetID: "a", manifest: Data("{}".utf8), device: device, deviceName: "laptop")
        #expect(try OfflineLicenseRequest(json: request.jsonValue, maxManifestBytes: 1 << 20) == request)
        guard case .object(var object) = request.jsonValue else { Issue.record("not an object"); return }
        object["extra"] = .bool(true)
        #expect(throws: OfflineLicenseError(.malformed, "")) {
            try OfflineLicenseRequest(json: .object(object), maxManifestBytes: 1 << 20)
        }
        #expect(throws: OfflineLicenseError(.malformed, "")) {
            try OfflineLicenseRequest(json: request.jsonValue, maxManifestBytes: 1)
        }

        let answer = OfflineLicenseAnswer(license: "a.b.c", licenseID: "lid", expiresAt: Date(timeIntervalSince1970: 1_764_612_000))
        let text = JSONWriter.string(answer.jsonValue)
        #expect(text.contains(#""expiresAt":"2025-12-01T18:00:00Z""#))
        #expect(try OfflineLicenseAnswer(json: answer.jsonValue) == answer)

        let report = OfflinePlayReport(firstPlayedAt: Date(timeIntervalSince1970: 1_764_612_000))
        #expect(try OfflinePlayReport(json: report.jsonValue) == report)
        #expect(try OfflinePlayReport(json: .object(JSONObject([]))) == OfflinePlayReport())
        #expect(throws: OfflineLicenseError(.malformed, "")) {
            try OfflinePlayReport(json: .object(JSONObject([("firstPlayedAt", .string("yesterday"))])))
        }
    }

    @Test func payloadReaderRefusesWhatItDoesNotKnow() throws {
        let device = try OfflineDeviceKey(try ECP256.KeyAgreement.PrivateKey().publicKey)
        guard case .object(let good) = try license(device: device).jsonValue else { Issue.record("not an object"); return }
        let mutations: [(String, JSONValue?)] = [
            ("extra", .bool(true)), ("exp", .number(JSONNumber(500))), ("iat", .string("1000")),
            ("keys", .array([])), ("cnf", .object(JSONObject([]))), ("playbackWindow", .number(JSONNumber(0))),
            ("exp", .number(JSONNumber(2000.5))),
        ]
        for (name, value) in mutations {
            var object = good
            object[name] = value
            #expect(throws: OfflineLicenseError(.malformed, ""), "\(name)") { try OfflineLicense(json: .object(object)) }
        }
    }
}
