import Dispatch
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Testing

@Suite struct MediaKeyRequestTests {
    /// The body a viewer refused by the media policy gets: the rule's stable code, no more.
    static func platformRefused(_ denial: MediaDenial) -> String {
        #"{"error":"platform refused","reason":"\#(denial.rawValue)"}"#
    }

    @Test func openPathDeliversEachComponentKeyRewrappedToTheClient() throws {
        let harness = try MediaHarness(configure: { $0.leaseSeconds = 900 })
        let package = try TestPackage.audioVideo()
        let manifest = try package.manifest()
        let token = try harness.viewer("alice@example.com")
        for component in package.components {
            let sessionID = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
            let (result, clientKey) = try harness.openKeyRequest(token: token, asset: package.uuid, component: component.id,
                                                                 sessionId: sessionID, manifest: manifest)
            #expect(result.status == 200)
            let body = try #require(try JSONParser.parse(result.body).object)
            #expect(body["status"]?.string == "success")
            #expect(body["metadata"]?.object?["lease_seconds"]?.int64 == 900)
            #expect(try MediaHarness.unwrap(result, with: clientKey) == component.key)
        }
        // The second request for the same manifest came from the cache: one unwrap in all.
        #expect(harness.metrics.counterValue("media_key_cache_total", labels: [("result", "miss")]) == 1)
        #expect(harness.metrics.counterValue("media_key_cache_total", labels: [("result", "hit")]) == 1)
        let events = harness.auditEvents.filter { $0["event"]?.string == "key_request" }
        #expect(events.map { $0["decision"]?.string } == ["allow", "allow"])
        #expect(events.map { $0["component"]?.string } == ["video", "audio"])
        #expect(events.allSatisfy { $0["asset"]?.string == package.uuid && $0["protocol"]?.string == "tdf" })
        #expect(try harness.store.firstPlay(viewer: Identity.viewer("alice@example.com").storeKey, asset: package.uuid) != nil)
        #expect(harness.service.prometheusGauges().contains("kas_media_active_sessions 2\n"))
    }

    @Test(arguments: ManifestMutation.allCases)
    func eachManifestRefusalIs403WithoutAKey(_ mutation: ManifestMutation) throws {
        let harness = try MediaHarness()
        let (manifest, asset) = try mutation.apply()
        let token = try harness.viewer("alice@example.com")
        let sessionAsset = CanonicalUUID.isCanonical(asset) ? asset : asset.lowercased()
        let sessionID = try #require(try harness.startSession(token: token, asset: sessionAsset).sessionId)
        let (result, _) = try harness.openKeyRequest(token: token, asset: sessionAsset, component: "video",
                                                     sessionId: sessionID, manifest: manifest)
        #expect(result.status == 403)
        #expect(result.text == #"{"error":"manifest refused"}"#)
        #expect(harness.auditEvents.last?["reason"]?.string == mutation.refusal.rawValue)
        #expect(harness.metrics.counterValue("media_denials_total", labels: [("reason", mutation.refusal.rawValue)]) == 1)
    }

    @Test func requestPairingAndSessionRefusals() throws {
        let harness = try MediaHarness()
        let package = try TestPackage.videoOnly()
        let manifest = try package.manifest()
        let alice = try harness.viewer("alice@example.com")
        let bob = try harness.viewer("bob@example.com")
        func refusal(token: String, asset: String, component: String?, session: String, extra: [(String, JSONValue)] = []) throws -> String? {
            let (result, _) = try harness.openKeyRequest(token: token, asset: asset, component: component, sessionId: session,
                                                         manifest: manifest, extra: extra)
            #expect(result.status == 403)
            #expect(!result.text.contains("wrappedKey"))
            return harness.auditEvents.last?["reason"]?.string
        }
        let session = try #require(try harness.startSession(token: alice, asset: package.uuid).sessionId)
        #expect(try refusal(token: alice, asset: package.uuid, component: nil, session: session) == "component_missing")
        #expect(try refusal(token: alice, asset: package.uuid, component: "audio", session: session) == "component_unknown")
        #expect(try refusal(token: bob, asset: package.uuid, component: "video", session: session) == "session_invalid")
        #expect(try refusal(token: alice, asset: package.uuid, component: "video", session: String(repeating: "A", count: 43))
                == "session_invalid")
        // A session for another asset, paired with this manifest.
        let other = UUID().uuidString.lowercased()
        let otherSession = try #require(try harness.startSession(token: alice, asset: other).sessionId)
        #expect(try refusal(token: alice, asset: other, component: "video", session: otherSession) == "asset_mismatch")
        #expect(try refusal(token: alice, asset: package.uuid, component: "video", session: otherSession) == "session_invalid")
        // The FairPlay session cannot be used on the open path.
        let fairplay = try #require(try harness.startSession(token: alice, asset: package.uuid, protocol: "fairplay").sessionId)
        #expect(try refusal(token: alice, asset: package.uuid, component: "video", session: fairplay) == "session_protocol_mismatch")
        // A session bound to one component does not serve another.
        let audio = try #require(try harness.startSession(token: alice, asset: package.uuid,
                                                          extra: [("component", "audio")]).sessionId)
        #expect(try refusal(token: alice, asset: package.uuid, component: "video", session: audio) == "session_component_mismatch")
        // Ended and expired sessions.
        #expect(try harness.delete("/media/v1/session/\(session)", token: alice).status == 200)
        #expect(try refusal(token: alice, asset: package.uuid, component: "video", session: session) == "session_invalid")
        let late = try #require(try harness.startSession(token: alice, asset: package.uuid).sessionId)
        harness.clock.advance(181)
        #expect(try refusal(token: alice, asset: package.uuid, component: "video", session: late) == "session_invalid")
    }

    @Test func malformedBodiesAre400() throws {
        let harness = try MediaHarness()
        let token = try harness.viewer("alice@example.com")
        let asset = UUID().uuidString.lowercased()
        let session = try #require(try harness.startSession(token: token, asset: asset).sessionId)
        let base: [(String, JSONValue)] = [("assetId", .string(asset)), ("sessionId", .string(session)), ("component", "video")]
        let bodies: [JSONValue] = [
            .object(JSONObject(base + [("tdfManifest", "e30=")])),                                   // no delivery path
            .object(JSONObject(base + [("tdfManifest", "e30="), ("spcData", "AA=="), ("clientPublicKey", "x")])),
            .object(JSONObject(base + [("tdfManifest", "not base64"), ("clientPublicKey", "x")])),
            .object(JSONObject(base + [("tdfManifest", "e30="), ("clientPublicKey", "not a pem")])),
            .object(JSONObject(base + [("tdfManifest", "e30="), ("spcData", "AA=="), ("userId", "alice")])),
            .array([]),
        ]
        for body in bodies {
            #expect(try harness.post("/media/v1/key-request", token: token, body: body).status == 400)
        }
        #expect(try harness.post("/media/v1/key-request", token: nil, body: .object(JSONObject(base))).status == 401)
    }

    @Test func policyDenialsAre403PlatformRefused() throws {
        let harness = try MediaHarness(regions: TrustedRegionSource(header: "X-Region", trustedProxies: ["127.0.0.0/8"]) ?? .none)
        var package = try TestPackage.videoOnly()
        package.media = .object(JSONObject([("v", 1), ("allowedRegions", ["US"])]))
        let manifest = try package.manifest()
        let alice = try harness.viewer("alice@example.com")
        let nobody = try harness.viewer("mallory@example.com", entitlements: [])
        func request(_ token: String, headers: [String]) throws -> CurlResult {
            let session = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
            let clientKey = try ECP256.KeyAgreement.PrivateKey()
            return try harness.post("/media/v1/key-request", token: token, body: .object(JSONObject([
                ("assetId", .string(package.uuid)), ("sessionId", .string(session)), ("component", "video"),
                ("tdfManifest", .string(Base64.encode(manifest))), ("clientPublicKey", .string(clientKey.publicKey.pemRepresentation)),
            ])), headers: headers)
        }
        #expect(try request(alice, headers: ["X-Region: us"]).status == 200)
        for (token, headers, denial) in [(nobody, ["X-Region: US"], MediaDenial.notEntitled),
                                         (alice, ["X-Region: FR"], .regionNotAllowed), (alice, [], .regionUnknown)] {
            let refused = try request(token, headers: headers)
            #expect(refused.status == 403 && refused.text == Self.platformRefused(denial))
            #expect(refused.header("Content-Type") == "application/json")
            #expect(harness.auditEvents.last?["reason"]?.string == denial.rawValue)
        }
        #expect(harness.metrics.counterValue("media_denials_total", labels: [("reason", "region_unknown")]) == 1)
    }

    @Test func regionHeaderFromAnUntrustedPeerIsIgnored() throws {
        let harness = try MediaHarness(regions: TrustedRegionSource(header: "X-Region", trustedProxies: ["10.0.0.0/8"]) ?? .none)
        var package = try TestPackage.videoOnly()
        package.media = .object(JSONObject([("v", 1), ("allowedRegions", ["US"])]))
        let token = try harness.viewer("alice@example.com")
        let session = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
        let (result, _) = try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: session,
                                                     manifest: try package.manifest())
        #expect(result.status == 403)
        #expect(harness.auditEvents.last?["reason"]?.string == "region_unknown")
    }

    @Test func deviceRulesRefuseSoftwareClients() throws {
        let harness = try MediaHarness()
        let token = try harness.viewer("alice@example.com")
        for (media, denial) in [
            (JSONValue.object(JSONObject([("v", 1), ("minSecurityLevel", "baseline")])), MediaDenial.securityLevelInsufficient),
            (.object(JSONObject([("v", 1), ("hdcp", "type0")])), .hdcpInsufficient),
            (.object(JSONObject([("v", 1), ("allowVirtualMachines", false)])), .virtualMachineUnverified),
        ] {
            var package = try TestPackage.videoOnly()
            package.media = media
            let session = try #require(try harness.startSession(token: token, asset: package.uuid,
                                                                extra: [("device", ["securityLevel": "main", "hdcp": "type1"])]).sessionId)
            let (result, _) = try harness.openKeyRequest(token: token, asset: package.uuid, component: "video",
                                                         sessionId: session, manifest: try package.manifest())
            #expect(result.status == 403 && result.text == Self.platformRefused(denial))
            #expect(harness.auditEvents.last?["reason"]?.string == denial.rawValue)
        }
        // A client that says it is a VM is believed.
        var package = try TestPackage.videoOnly()
        package.media = .object(JSONObject([("v", 1), ("allowVirtualMachines", false)]))
        let session = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
        let vm = try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: session,
                                            manifest: try package.manifest(), extra: [("device", ["virtualMachine": true])])
        #expect(vm.result.status == 403 && vm.result.text == Self.platformRefused(.virtualMachine))
        #expect(harness.auditEvents.last?["reason"]?.string == "virtual_machine")
    }

    @Test func rentalWindowsFromTheTokenAndTheFirstPlay() throws {
        let harness = try MediaHarness()
        var package = try TestPackage.videoOnly()
        package.media = .object(JSONObject([("v", 1), ("rental", ["purchaseWindowSeconds": 3600, "playbackWindowSeconds": 7200])]))
        let manifest = try package.manifest()
        let purchase = Int64(harness.clock.now.timeIntervalSince1970) - 60
        let renter = try harness.viewer("renter@example.com", rentals: [package.uuid: purchase])
        let stranger = try harness.viewer("stranger@example.com")
        let late = try harness.viewer("late@example.com", rentals: [package.uuid: purchase - 7200])
        func play(_ token: String) throws -> CurlResult {
            let session = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
            return try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: session,
                                              manifest: manifest).result
        }
        #expect(try play(stranger).text == Self.platformRefused(.rentalNotPurchased))
        #expect(harness.auditEvents.last?["reason"]?.string == "rental_not_purchased")
        #expect(try play(late).text == Self.platformRefused(.rentalPurchaseWindowClosed))
        #expect(harness.auditEvents.last?["reason"]?.string == "rental_purchase_window_closed")
        #expect(try play(renter).status == 200)
        harness.clock.advance(7000)
        #expect(try play(renter).status == 200)
        harness.clock.advance(201)
        let lapsed = try play(renter)
        #expect(lapsed.status == 403 && lapsed.text == Self.platformRefused(.rentalPlaybackWindowClosed))
        #expect(harness.auditEvents.last?["reason"]?.string == "rental_playback_window_closed")
    }

    @Test func streamLimitIsEnforcedAtKeyRequestAndLearnedForStarts() throws {
        let harness = try MediaHarness()
        var package = try TestPackage.videoOnly()
        package.media = .object(JSONObject([("v", 1), ("maxConcurrentStreams", 1)]))
        let manifest = try package.manifest()
        let token = try harness.viewer("alice@example.com")
        // The limit is not known before the first manifest: both starts succeed...
        let first = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
        let second = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
        // ...but only the oldest playback gets a key, and the other session is ended.
        let over = try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: second,
                                              manifest: manifest).result
        #expect(over.status == 403 && over.text == Self.platformRefused(.concurrentStreams))
        #expect(harness.auditEvents.last?["reason"]?.string == "concurrent_streams")
        #expect(try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: first,
                                           manifest: manifest).result.status == 200)
        #expect(try harness.post("/media/v1/session/\(second)/heartbeat", token: token, body: [:]).status == 404)
        // From now on the start itself is refused, with the same code.
        let refusedStart = try harness.startSession(token: token, asset: package.uuid).result
        #expect(refusedStart.status == 429 && refusedStart.text == #"{"error":"concurrency limit","reason":"concurrent_streams"}"#)
    }

    @Test func rateLimitAnswers429WithRetryAfter() throws {
        let harness = try MediaHarness(configure: { $0.keyRequestsPerMinute = 3 })
        let package = try TestPackage.videoOnly()
        let manifest = try package.manifest()
        let token = try harness.viewer("alice@example.com")
        let other = try harness.viewer("bob@example.com")
        let session = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
        for _ in 0..<3 {
            #expect(try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: session,
                                               manifest: manifest).result.status == 200)
        }
        let limited = try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: session,
                                                 manifest: manifest).result
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "20")
        #expect(!limited.text.contains("wrappedKey"))
        // Per viewer: someone else is not limited.
        let otherSession = try #require(try harness.startSession(token: other, asset: package.uuid).sessionId)
        #expect(try harness.openKeyRequest(token: other, asset: package.uuid, component: "video", sessionId: otherSession,
                                           manifest: manifest).result.status == 200)
        harness.clock.advance(20)
        #expect(try harness.openKeyRequest(token: token, asset: package.uuid, component: "video", sessionId: session,
                                           manifest: manifest).result.status == 200)
    }
}

@Suite struct MediaFairPlayRouteTests {
    private func fairPlayRequest(_ harness: MediaHarness, token: String, package: TestPackage, manifest: Data,
                                 component: String, spc: Data) throws -> CurlResult {
        let session = try #require(try harness.startSession(token: token, asset: package.uuid, protocol: "fairplay").sessionId)
        return try harness.post("/media/v1/key-request", token: token, body: .object(JSONObject([
            ("assetId", .string(package.uuid)), ("component", .string(component)), ("sessionId", .string(session)),
            ("spcData", .string(Base64.encode(spc))), ("tdfManifest", .string(Base64.encode(manifest))),
        ])))
    }

    @Test func withoutAModuleFairPlayIs503() throws {
        let harness = try MediaHarness()
        let package = try TestPackage.videoOnly()
        let token = try harness.viewer("alice@example.com")
        let result = try fairPlayRequest(harness, token: token, package: package, manifest: try package.manifest(),
                                         component: "video", spc: Data([1, 2, 3]))
        #expect(result.status == 503)
        #expect(result.text == #"{"error":"fairplay unavailable"}"#)
    }

    @Test func theSDKGetsEachComponentsTermsAndTheCKCComesBack() throws {
        let package = try TestPackage.audioVideo()
        let ckc = Data((0..<64).map { UInt8($0) })
        for component in package.components {
            let transport = RecordingSDKTransport(ckc: ckc, spcAssetID: "\(package.uuid)/\(component.id)")
            let harness = try MediaHarness(configure: { $0.leaseSeconds = 600 }, fairPlay: transport.module)
            let token = try harness.viewer("alice@example.com")
            let result = try fairPlayRequest(harness, token: token, package: package, manifest: try package.manifest(),
                                             component: component.id, spc: Data([9, 9, 9]))
            #expect(result.status == 200)
            let body = try #require(try JSONParser.parse(result.body).object)
            #expect(body["wrappedKey"]?.string == Base64.encode(ckc))
            #expect(body["sessionPublicKey"] == nil)
            #expect(body["metadata"]?.object?["lease_seconds"]?.int64 == 600)
            let requests = transport.requests.withLock { $0 }
            #expect(requests.count == 2)   // get-client-info, then create-ckc
            let item = requests.last?.value(at: [.key("fairplay-streaming-request"), .key("create-ckc"), .index(0)])
            let info = item?.value(at: [.key("asset-info"), .index(0)])
            #expect(item?.object?["asset-id"]?.string == "\(package.uuid)/\(component.id)")
            #expect(item?.object?["spc"]?.string == Base64.encode(Data([9, 9, 9])))
            #expect(info?.object?["content-key"]?.string == Hex.encode(component.key))
            #expect(info?.object?["content-iv"]?.string == Hex.encode(package.iv))
            #expect(info?.object?["content-type"]?.string == (component.kind == "video" ? "uhd" : "audio"))
            #expect(info?.object?["hdcp-type"]?.int64 == 1)
            #expect(info?.object?["encryption-scheme"]?.string == "cbcs")
            #expect(info?.object?["lease-duration"]?.int64 == 600)
        }
    }

    @Test func aCKCForAnotherContentIdentifierIsDropped() throws {
        let package = try TestPackage.audioVideo()
        let ckc = Data(repeating: 0xCC, count: 32)
        for spcAssetID in ["\(package.uuid)/audio", package.uuid, nil] as [String?] {
            let transport = RecordingSDKTransport(ckc: ckc, spcAssetID: spcAssetID)
            let harness = try MediaHarness(fairPlay: transport.module)
            let token = try harness.viewer("alice@example.com")
            let result = try fairPlayRequest(harness, token: token, package: package, manifest: try package.manifest(),
                                             component: "video", spc: Data([1]))
            #expect(result.status == 403)
            #expect(result.text == #"{"error":"manifest refused"}"#)
            #expect(harness.auditEvents.last?["reason"]?.string == "spc_asset_mismatch")
        }
    }

    @Test func fairPlayDeviceInfoDecidesDeviceRules() throws {
        var package = try TestPackage.videoOnly()
        package.media = .object(JSONObject([("v", 1), ("minSecurityLevel", "main"), ("allowVirtualMachines", false)]))
        let baseline = RecordingSDKTransport(ckc: Data([1]), spcAssetID: "\(package.uuid)/video", clientInfo: JSONObject([
            ("id", 1), ("status", 0), ("security-level", "baseline"), ("hdcp-type", 1),
            ("vm-device-info", .object(JSONObject([("is-vm", false)]))),
        ]))
        let harness = try MediaHarness(fairPlay: baseline.module)
        let token = try harness.viewer("alice@example.com")
        #expect(try fairPlayRequest(harness, token: token, package: package, manifest: try package.manifest(),
                                    component: "video", spc: Data([1])).status == 403)
        #expect(harness.auditEvents.last?["reason"]?.string == "security_level_insufficient")
        // No CKC was asked for.
        #expect(baseline.requests.withLock { $0.count } == 1)
        let main = RecordingSDKTransport(ckc: Data([1]), spcAssetID: "\(package.uuid)/video")
        let second = try MediaHarness(fairPlay: main.module)
        let viewer = try second.viewer("alice@example.com")
        #expect(try fairPlayRequest(second, token: viewer, package: package, manifest: try package.manifest(),
                                    component: "video", spc: Data([1])).status == 200)
    }
}
