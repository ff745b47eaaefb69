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
import MediaDRMMedia
import MediaDRMOffline
import MediaDRMTDF
import Synchronization
import Testing

@Suite enum OfflineTests {}

extension OfflineTests {
    /// The offline licence routes of a real `kas serve` (docs/offline.md), with curl as the player:
    /// device limits (sequential and 20 in parallel), renewal never past the rental, refusals with
    /// their reasons, the signature against the published JWKS (and Python `cryptography`), rotation.
    @Suite struct OfflineLicenseServeTests {
        /// A served KAS on a fresh ring, and what its tests need around it.
        final class Served: @unchecked Sendable {
            let temp: TemporaryDirectory
            let data: String
            let kas: ServedKAS
            /// The packaged (and accepted) key service URL: fixed, so a package's URL stays accepted.
            static let publicURL = "http://localhost:9"

            /// `configuration`: the `--config` file's JSON, if any.
            init(configuration: String? = nil) throws {
                temp = try TemporaryDirectory()
                data = temp.appending("data")
                let generated = try KASToolHarness.run(["keys", "generate", "--data-dir", data])
                guard generated.status == 0 else { throw KASToolHarness.Failure(description: generated.stderr) }
                var arguments = ["--listen", "127.0.0.1:0", "--data-dir", data, "--public-url", Self.publicURL]
                if let configuration {
                    let file = temp.appending("kas.json")
                    try Data(configuration.utf8).write(to: URL(fileURLWithPath: file))
                    arguments += ["--config", file]
                }
                kas = try ServedKAS.start(arguments, in: temp.path)
            }

            deinit { kas.stop() }

            /// An fps-v2 manifest (video and audio) wrapped to the ring's active RSA key.
            func package(_ rules: MediaRules?) throws -> TestPackage {
                var package = try TestPackage.audioVideo()
                package.kasURL = Self.publicURL
                package.kasPublicKey = try #require(try KeyRing.load(dataDirectory: data).active(.rsa2048)?.rsaPrivateKey?.publicKey)
                package.media = rules?.jsonValue
                return package
            }

            func token(_ subject: String, rentals: [String: Int64] = [:]) throws -> String {
                let rentalMembers = rentals.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
                let claims = #"{"entitlements": ["\#(MediaFixture.attribute)"], "rentals": {\#(rentalMembers)}}"#
                let minted = try KASToolHarness.run(["token", "--sub", subject, "--ttl", "600", "--data-dir", data, "--claims", claims])
                guard minted.status == 0 else { throw KASToolHarness.Failure(description: minted.stderr) }
                return minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            func request(_ method: String, _ path: String, token: String?, body: JSONValue?) throws -> CurlResult {
                var arguments = ["-X", method, "-H", "Content-Type: application/json"]
                if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
                if body != nil { arguments += ["--data-binary", "@-"] }
                return try Curl.run(arguments + [kas.address + path], stdin: body.map { JSONWriter.write($0) })
            }

            func issue(_ package: TestPackage, device: ECP256.KeyAgreement.PrivateKey, token: String) throws -> CurlResult {
                let body = OfflineLicenseRequest(assetID: package.uuid, manifest: try package.manifest(),
                                                 device: try OfflineDeviceKey(device.publicKey), deviceName: "test device")
                return try request("POST", "/media/v1/offline-license", token: token, body: body.jsonValue)
            }

            func signingKeys() throws -> JWKSet {
                let answer = try Curl.run([kas.address + "/media/v1/offline-signing-keys"])
                guard answer.status == 200 else { throw KASToolHarness.Failure(description: "JWKS: \(answer.status) \(answer.text)") }
                return try JWKSet(jsonData: answer.body)
            }

            var auditLog: String { (try? String(contentsOfFile: data + "/audit.log", encoding: .utf8)) ?? "" }
        }

        static func answer(_ result: CurlResult) throws -> OfflineLicenseAnswer {
            try OfflineLicenseAnswer(json: try JSONParser.parse(result.body))
        }

        static func reason(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["reason"]?.string }

        /// An offline licence carries every content key of its title: it takes a token from the
        /// viewer's key-request bucket, so a viewer whose key requests emptied it gets no licence
        /// (and licences empty it for key requests).
        @Test func licencesShareTheViewersKeyRequestBucket() throws {
            let served = try Served(configuration: #"{"rateLimits": {"keyRequestsPerMinute": 3}}"#)
            let package = try served.package(MediaRules(offline: true, maxOfflineDevices: 10))
            let token = try served.token("bucket-\(UUID().uuidString)")
            // Each key request takes its token before its body is read: three empty it.
            for _ in 0..<3 {
                #expect(try served.request("POST", "/media/v1/key-request", token: token, body: .object(JSONObject())).status == 400)
            }
            let refused = try served.issue(package, device: try ECP256.KeyAgreement.PrivateKey(), token: token)
            #expect(refused.status == 429, "\(refused.text)")
            #expect(Self.reason(refused) == "rate_limited" || refused.text.contains("rate limit"), "\(refused.text)")
            #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
            // Another viewer's bucket is their own.
            let other = try served.issue(package, device: try ECP256.KeyAgreement.PrivateKey(), token: try served.token("other-\(UUID().uuidString)"))
            #expect(other.status == 200, "\(other.text)")
        }

        @Test func deviceLimitRefusalsAndTheSignatureAgainstTheJWKS() throws {
            let served = try Served()
            let rules = MediaRules(offline: true, offlineLicenseDurationSeconds: 3600, offlinePlaybackWindowSeconds: 900,
                                   maxOfflineDevices: 2)
            let package = try served.package(rules)
            let token = try served.token("offline-\(UUID().uuidString)")
            let devices = try (0..<3).map { _ in try ECP256.KeyAgreement.PrivateKey() }

            // Two devices are admitted, the third is refused until one releases.
            let first = try served.issue(package, device: devices[0], token: token)
            #expect(first.status == 200, "\(first.text)")
            let second = try served.issue(package, device: devices[1], token: token)
            #expect(second.status == 200, "\(second.text)")
            let third = try served.issue(package, device: devices[2], token: token)
            #expect(third.status == 429 && Self.reason(third) == "offline_device_limit", "\(third.text)")
            // The same device again replaces its own licence: still two devices.
            #expect(try served.issue(package, device: devices[0], token: token).status == 200)
            let secondAnswer = try Self.answer(second)
            let released = try served.request("DELETE", "/media/v1/offline-license/\(secondAnswer.licenseID)", token: token,
                                              body: nil)
            #expect(released.status == 204, "\(released.text)")
            #expect(try served.request("DELETE", "/media/v1/offline-license/\(secondAnswer.licenseID)", token: token,
                                       body: nil).status == 404)
            let afterRelease = try served.issue(package, device: devices[2], token: token)
            #expect(afterRelease.status == 200, "\(afterRelease.text)")

            // The licence verifies with the published key set, is bound to its device and carries
            // the packaged keys, wrapped so that only that device opens them.
            let answer = try Self.answer(afterRelease)
            let jwks = try served.signingKeys()
            #expect(jwks.keys.map(\.keyID) == ["l1"] && jwks.keys.allSatisfy { $0.algorithm == .es256 && $0.use == "sig" })
            let ring = try KeyRing.load(dataDirectory: served.data)
            let ecdh = try #require(ring.active(.ecSecp256r1)?.ecPrivateKey?.publicKey.rawRepresentation)
            #expect(jwks.keys.allSatisfy { $0.p256PublicKey != nil && $0.p256PublicKey?.rawRepresentation != ecdh },
                    "never the ECDH key")
            let license = try OfflineLicense.verified(answer.license, signingKeys: jwks)
            #expect(license.asset == package.uuid && license.licenseID == answer.licenseID)
            let thumbprint = try OfflineDeviceKey(devices[2].publicKey).thumbprint
            #expect(license.deviceThumbprint == thumbprint)
            #expect(license.expiresAt - license.issuedAt == 3600 && license.playbackWindowSeconds == 900)
            #expect(OfflineTimestamp.date(numericDate: license.expiresAt) == answer.expiresAt && license.rentalEndsAt == nil)
            for component in package.components {
                let kind = try #require(MediaComponentKind(rawValue: component.kind))
                let key = try #require(license.key(for: kind))
                #expect(try key.unwrap(with: devices[2]) == SecretKey(data: component.key))
                #expect(throws: OfflineLicenseError(.keyUnwrapFailed, "")) { try key.unwrap(with: devices[0]) }
            }

            // An independent check: Python `cryptography` verifies the ES256 signature with the
            // JWKS and computes the same RFC 7638 device thumbprint.
            let jwksFile = try served.temp.write("jwks.json", String(decoding: jwks.jsonData, as: UTF8.self))
            let licenseFile = try served.temp.write("license.jws", answer.license)
            let deviceFile = try served.temp.write("device.pem", devices[2].publicKey.pemRepresentation)
            let python = try runProcess(try ProjectPython.interpreter(),
                                        [ProjectPython.script("verify_offline_license.py"), jwksFile, licenseFile, deviceFile])
            #expect(python.status == 0, "\(python.stderr)")
            let checked = try #require(try JSONParser.parse(python.stdout).object)
            #expect(checked["kid"]?.string == "l1" && checked["typ"]?.string == OfflineLicense.type)
            #expect(checked["deviceThumbprint"]?.string == license.deviceThumbprint)
            #expect(checked["payload"]?.object?["lid"]?.string == answer.licenseID)
            var forged = Array(answer.license.utf8)
            forged[forged.count / 2] = forged[forged.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let forgedFile = try served.temp.write("forged.jws", String(decoding: forged, as: UTF8.self))
            let refused = try runProcess(try ProjectPython.interpreter(),
                                         [ProjectPython.script("verify_offline_license.py"), jwksFile, forgedFile, deviceFile])
            #expect(refused.status != 0, "a changed licence does not verify")

            // Renewal: the same licence id and keys, a new signature, a later exp (the licence's
            // duration from the renewal). The renewal is sent once the clock's second has moved
            // past the issue's, so "later" is an order of events, not a measured duration.
            let issuedSecond = Date(timeIntervalSince1970: TimeInterval(license.issuedAt + 1))
            while Date() < issuedSecond { usleep(50_000) }
            let renewed = try served.request("POST", "/media/v1/offline-license/\(answer.licenseID)/renew", token: token,
                                             body: OfflinePlayReport().jsonValue)
            #expect(renewed.status == 200, "\(renewed.text)")
            let renewal = try OfflineLicense.verified(try Self.answer(renewed).license, signingKeys: jwks)
            #expect(renewal.licenseID == license.licenseID && renewal.keys == license.keys)
            #expect(renewal.issuedAt > license.issuedAt && renewal.expiresAt > license.expiresAt, "renewal extends exp")
            #expect(renewal.expiresAt - renewal.issuedAt == license.expiresAt - license.issuedAt)
            // Another viewer cannot renew or release it.
            let stranger = try served.token("stranger-\(UUID().uuidString)")
            #expect(try served.request("POST", "/media/v1/offline-license/\(answer.licenseID)/renew", token: stranger,
                                       body: nil).status == 404)
            #expect(try served.request("DELETE", "/media/v1/offline-license/\(answer.licenseID)", token: stranger,
                                       body: nil).status == 404)

            // Refusals, each with its reason.
            let closed = try served.issue(try served.package(MediaRules(maxConcurrentStreams: 1)), device: devices[0], token: token)
            #expect(closed.status == 403 && Self.reason(closed) == "offline_not_allowed", "\(closed.text)")
            var perSegment = try served.package(rules)
            var segmentPolicy = perSegment.policy
            segmentPolicy.components = nil
            perSegment.policyJSONOverride = try Base64.decode(segmentPolicy.base64)
            let hls = try served.issue(perSegment, device: devices[0], token: token)
            #expect(hls.status == 403 && Self.reason(hls) == "offline_profile_unsupported", "\(hls.text)")
            #expect((try? JSONParser.parse(hls.body))?.object?["error"]?.string?.contains("tdf-hls") == true)
            #expect(try served.issue(package, device: devices[0], token: "not-a-token").status == 401)
            let badKey = try served.request("POST", "/media/v1/offline-license", token: token, body: .object(JSONObject([
                ("assetId", .string(package.uuid)), ("tdfManifest", .string(Base64.encode(try package.manifest()))),
                ("devicePublicKey", .string("not a key")),
            ])))
            #expect(badKey.status == 400 && badKey.text.contains("devicePublicKey"), "\(badKey.text)")

            // Audited, with no licence, licence id or wrapped key in the log.
            let audit = served.auditLog
            #expect(audit.contains(#""event":"offline_license_issue""#) && audit.contains(#""reason":"offline_device_limit""#))
            #expect(audit.contains(#""event":"offline_license_renew""#) && audit.contains(#""event":"offline_license_release""#))
            #expect(!audit.contains(answer.licenseID) && !audit.contains(answer.license.prefix(40)))
            #expect(!audit.contains(Base64.encode(try #require(license.keys.first).wrappedKey)))
            // The request log names route patterns, never the licence id in the path.
            #expect(served.kas.log.contains("offline-license/{licenseId}") && !served.kas.log.contains(answer.licenseID))
        }

        /// Twenty devices of one viewer ask at once: exactly `maxOfflineDevices` are admitted.
        @Test func twentyParallelRequestsAdmitExactlyTheLimit() throws {
            let served = try Served()
            let package = try served.package(MediaRules(offline: true, maxOfflineDevices: 2))
            let token = try served.token("parallel-\(UUID().uuidString)")
            let devices = try (0..<20).map { _ in try ECP256.KeyAgreement.PrivateKey() }
            let statuses = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: devices.count) { index in
                let status = (try? served.issue(package, device: devices[index], token: token))?.status ?? -1
                statuses.withLock { $0.append(status) }
            }
            let all = statuses.withLock { $0 }
            #expect(all.filter { $0 == 200 }.count == 2, "\(all)")
            #expect(all.filter { $0 == 429 }.count == 18, "\(all)")
        }

        /// An expired licence frees its slot: with one device allowed and one-second licences, a
        /// second device is admitted (a bounded poll on the answer, its bound only limits a
        /// failure), and never before the first licence's `exp`.
        @Test func anExpiredLicenceFreesItsSlot() throws {
            let served = try Served()
            let package = try served.package(MediaRules(offline: true, offlineLicenseDurationSeconds: 1, maxOfflineDevices: 1))
            let token = try served.token("expiry-\(UUID().uuidString)")
            let jwks = try served.signingKeys()
            let first = try OfflineLicense.verified(
                try Self.answer(try served.issue(package, device: try ECP256.KeyAgreement.PrivateKey(), token: token)).license,
                signingKeys: jwks)
            let other = try ECP256.KeyAgreement.PrivateKey()
            var admitted: CurlResult?
            var refusals: [String?] = []
            let deadline = Date().addingTimeInterval(60)
            while admitted == nil, Date() < deadline {
                let result = try served.issue(package, device: other, token: token)
                if result.status == 200 { admitted = result } else { refusals.append(Self.reason(result)) }
                // The poll's pace, well under the viewer's rate limit of 60 requests a minute.
                if admitted == nil { usleep(250_000) }
            }
            let second = try #require(admitted, "the slot was never freed: \(refusals.suffix(3))")
            #expect(refusals.allSatisfy { $0 == "offline_device_limit" }, "\(Set(refusals.map { $0 ?? "nil" }))")
            let license = try OfflineLicense.verified(try Self.answer(second).license, signingKeys: jwks)
            #expect(license.issuedAt >= first.expiresAt, "admitted only once the first licence had expired")
        }

        /// A rental: the licence never outlives it; the reported first offline play starts its
        /// playback window; a rental over is refused with the rental reason.
        @Test func renewNeverPastTheRental() throws {
            let served = try Served()
            let rules = MediaRules(rentalPurchaseWindowSeconds: 86_400, rentalPlaybackWindowSeconds: 600, offline: true,
                                   offlineLicenseDurationSeconds: 3600, maxOfflineDevices: 1)
            let package = try served.package(rules)
            let purchase = Int64(Date().timeIntervalSince1970) - 100
            let token = try served.token("renter-\(UUID().uuidString)", rentals: [package.uuid: purchase])
            let device = try ECP256.KeyAgreement.PrivateKey()
            let issued = try served.issue(package, device: device, token: token)
            #expect(issued.status == 200, "\(issued.text)")
            let jwks = try served.signingKeys()
            let answer = try Self.answer(issued)
            let license = try OfflineLicense.verified(answer.license, signingKeys: jwks)
            // Not yet played: the rental ends at the latest a first play at the purchase window's end allows.
            #expect(license.rentalEndsAt == purchase + 86_400 + 600)
            let rentalEndsAt = try #require(license.rentalEndsAt)
            #expect(license.expiresAt <= rentalEndsAt)
            #expect(license.playbackWindowSeconds == 600, "the rental's window, counted from the first offline play")

            // The player reports its first offline play: the window runs from it, and the renewal
            // ends with it, well before the licence duration would.
            let played = Date().addingTimeInterval(-30)
            let renewed = try served.request("POST", "/media/v1/offline-license/\(answer.licenseID)/renew", token: token,
                                             body: OfflinePlayReport(firstPlayedAt: played).jsonValue)
            #expect(renewed.status == 200, "\(renewed.text)")
            let renewal = try OfflineLicense.verified(try Self.answer(renewed).license, signingKeys: jwks)
            let rentalEnd = OfflineTimestamp.numericDate(played) + 600
            #expect(renewal.rentalEndsAt == rentalEnd && renewal.expiresAt == rentalEnd, "never past the rental")
            #expect(renewal.expiresAt < license.expiresAt, "the renewal ends with the rental, before the first licence's own end")

            // A first play reported long ago: the rental is over; renewal and a new licence are refused.
            let late = try served.package(rules)
            let lateToken = try served.token("late-\(UUID().uuidString)", rentals: [late.uuid: purchase])
            let lateAnswer = try Self.answer(try served.issue(late, device: device, token: lateToken))
            let over = try served.request("POST", "/media/v1/offline-license/\(lateAnswer.licenseID)/renew", token: lateToken,
                                          body: OfflinePlayReport(firstPlayedAt: Date().addingTimeInterval(-700)).jsonValue)
            #expect(over.status == 403 && Self.reason(over) == "rental_playback_window_closed", "\(over.text)")
            let again = try served.issue(late, device: try ECP256.KeyAgreement.PrivateKey(), token: lateToken)
            #expect(again.status == 403 && Self.reason(again) == "rental_playback_window_closed", "\(again.text)")
        }

        /// A rotated signing key stays published while a licence it signed is live, and only then.
        @Test func rotatedSigningKeyIsPublishedUntilItsLicencesEnd() throws {
            let served = try Served()
            let package = try served.package(MediaRules(offline: true, maxOfflineDevices: 5))
            let token = try served.token("rotation-\(UUID().uuidString)")
            let old = try Self.answer(try served.issue(package, device: try ECP256.KeyAgreement.PrivateKey(), token: token))
            let rotated = try KASToolHarness.run(["keys", "rotate", "--algorithm", "offline-license", "--data-dir", served.data])
            #expect(rotated.status == 0 && rotated.output == "l2 offline-license active, retired l1\n", "\(rotated.stderr)")
            kill(served.kas.process.processIdentifier, SIGHUP)
            // A bounded poll for the reload (the bound only limits a failure).
            let deadline = Date().addingTimeInterval(60)
            while !served.kas.log.contains("keys_reloaded"), Date() < deadline { usleep(20_000) }
            #expect(served.kas.log.contains("keys_reloaded"))

            let both = try served.signingKeys()
            #expect(Set(both.keys.compactMap(\.keyID)) == ["l1", "l2"])
            #expect(try OfflineLicense.verified(old.license, signingKeys: both).licenseID == old.licenseID)
            let fresh = try Self.answer(try served.issue(package, device: try ECP256.KeyAgreement.PrivateKey(), token: token))
            #expect(try JWS.unverifiedContents(of: fresh.license).header["kid"] == .string("l2"))
            #expect(try OfflineLicense.verified(fresh.license, signingKeys: both).licenseID == fresh.licenseID)

            // The last licence l1 signed is given back: l1 is no longer published.
            #expect(try served.request("DELETE", "/media/v1/offline-license/\(old.licenseID)", token: token, body: nil).status == 204)
            let after = try served.signingKeys()
            #expect(after.keys.compactMap(\.keyID) == ["l2"])
            #expect(throws: OfflineLicenseError(.badSignature, "")) { try OfflineLicense.verified(old.license, signingKeys: after) }
        }
    }
}
