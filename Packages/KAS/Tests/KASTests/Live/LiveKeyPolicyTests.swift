import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Testing

/// The KAS side of live (docs/live.md "Live on the KAS") on a real `packager live` stream: the
/// key-period bounds and a catalogued event's window and blackouts, decided on the KAS's own
/// clock (a `TestClock` the test sets; nothing sleeps). The stream is catalogued with the built
/// `kas assets add --live`, keys are asked for over HTTP (`POST /media/v1/rewrap`) and each
/// delivered key is checked against the openssl CLI's unwrapping of the segment's own key access
/// object with the ring's private key.
@Suite struct LiveKeyPolicyTests {
    static let regionHeader = "X-Viewer-Region"
    static let leadSeconds = 2
    static let dvrSeconds = 10
    static let staleConfiguredKeyPeriodSeconds = 600

    struct Refused: Equatable {
        let status: Int
        let reason: String?
    }

    @Test func periodsEventWindowAndBlackoutsDecideOnTheKASClock() throws {
        let clock = TestClock()
        let kas = try KASTestHarness(configure: {
            // Not the stream's 6 s: the segments carry their period's length (livePeriodSeconds),
            // which wins; this value is for segments packaged before it was written.
            $0.media.liveKeyPeriodSeconds = Self.staleConfiguredKeyPeriodSeconds
            $0.media.livePeriodLeadSeconds = Self.leadSeconds
            $0.media.liveDVRSeconds = Self.dvrSeconds
            $0.regionHeader = Self.regionHeader
            $0.trustedProxies = ["127.0.0.1"]
        }, clock: { clock.now })
        defer { kas.stop() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-live-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let stream = try LiveStreamFixture(kas: kas, in: work)
        #expect(stream.segments.map(\.period) == [0, 0, 0, 1, 1, 1])
        let period0 = try stream.segment(period: 0), period1 = try stream.segment(period: 1)
        let start = period0.periodStart
        #expect(period1.periodStart == start + Int64(LiveStreamFixture.keyPeriodSeconds))
        #expect(stream.segments.allSatisfy { $0.periodSeconds == Int64(LiveStreamFixture.keyPeriodSeconds) })

        // The event: from the first period's start for 8 s (into period 1), DE blacked out.
        let added = try KASToolHarness.run([
            "assets", "add", stream.directory + "/", "--path", "/match/", "--title", "Match", "--live",
            "--starts-at", RFC3339Timestamp.string(seconds: start), "--ends-at", RFC3339Timestamp.string(seconds: start + 8),
            "--blackout-regions", "DE", "--data-dir", kas.dataDirectory, "--public-url", kas.publicURL,
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let asset = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(asset == period0.reader.policy.uuid.lowercased())
        let entry = try #require(try kas.application.delivery.catalog.entry(assetID: asset))
        #expect(entry.live == CatalogLiveEvent(startsAt: Date(timeIntervalSince1970: TimeInterval(start)),
                                                endsAt: Date(timeIntervalSince1970: TimeInterval(start + 8)),
                                                blackoutRegions: ["DE"]))

        let token = try kas.token(sub: "live-viewer", entitlements: [LiveStreamFixture.attribute])
        let client = try ECP256.KeyAgreement.PrivateKey()
        func at(_ offset: Int64) { clock.set(Date(timeIntervalSince1970: TimeInterval(start + offset))) }
        at(-1)
        let session = try MediaRewrapRouteTests.session(kas, token: token, asset: asset)
        func rewrap(_ segment: LiveStreamFixture.Segment, region: String? = "FR") throws -> CurlResult {
            var arguments = ["-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(token)"]
            if let region { arguments += ["-H", "\(Self.regionHeader): \(region)"] }
            let body = LiveStreamFixture.rewrapBody(segment, session: session, clientKey: client.publicKey.pemRepresentation)
            return try Curl.run(arguments + ["--data-binary", "@-", kas.url("/media/v1/rewrap")],
                                stdin: JSONWriter.write(body, options: [.sortedKeys]))
        }
        func startPlayback(region: String) throws -> CurlResult {
            let body = JSONValue.object(JSONObject([
                ("assetId", .string(asset)), ("drmSystem", .string("tdf")), ("manifestTypes", .array([.string("hls")])),
                ("clientPlatform", .string("linux")),
            ]))
            return try Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(token)",
                                 "-H", "\(Self.regionHeader): \(region)", "--data-binary", "@-", kas.url("/media/v1/playback")],
                                stdin: JSONWriter.write(body))
        }
        func refused(_ result: CurlResult) -> Refused {
            Refused(status: result.status, reason: (try? JSONParser.parse(result.body))?.object?["reason"]?.string)
        }
        func expectKey(_ result: CurlResult, of segment: LiveStreamFixture.Segment) throws {
            #expect(result.status == 200, "\(result.text)")
            let answer = try #require(try JSONParser.parse(result.body).object)
            let sessionKey = try ECP256.KeyAgreement.PublicKey(pemRepresentation: try #require(answer["sessionPublicKey"]?.string))
            let object = try #require(answer["responses"]?.array?.first?.object?["results"]?.array?.first?.object)
            let wrapped = try Base64.decode(try #require(object["kasWrappedKey"]?.string))
            let delivered = try ECWrap.unwrap(wrapped, ephemeralPublicKey: sessionKey, with: client)
            #expect(delivered == SecretKey(data: try Self.opensslKey(segment, kas: kas, work: work)))
        }

        // Before the event: no playback starts; period 0 is within the lead, but the event has not started.
        #expect(refused(try startPlayback(region: "FR")) == Refused(status: 403, reason: "live_event_not_started"))
        #expect(refused(try rewrap(period0)) == Refused(status: 403, reason: "live_event_not_started"))
        // 1 s in: period 1 starts 5 s ahead, more than the 2 s lead.
        at(1)
        #expect(refused(try rewrap(period1)) == Refused(status: 403, reason: "live_period_not_started"))
        // 7 s in: period 1 is current, period 0 ended 1 s ago (within the DVR range): both keys leave.
        at(7)
        try expectKey(try rewrap(period1), of: period1)
        try expectKey(try rewrap(period0), of: period0)
        // A playback starts, says it is live and names the stream's master playlist; not in DE.
        let started = try startPlayback(region: "FR")
        #expect(started.status == 200, "\(started.text)")
        let playback = try #require(try JSONParser.parse(started.body).object)
        #expect(playback["mediaUrl"]?.string?.hasSuffix("/match/master.m3u8") == true, "\(started.text)")
        #expect(playback["live"] == .object(JSONObject([
            ("startsAt", .string(RFC3339Timestamp.string(seconds: start))),
            ("endsAt", .string(RFC3339Timestamp.string(seconds: start + 8))), ("blackoutRegions", .array([.string("DE")])),
        ])))
        #expect(refused(try startPlayback(region: "DE")) == Refused(status: 403, reason: "region_blocked"))
        // The blackout: DE refused, no region refused (fail closed).
        #expect(refused(try rewrap(period1, region: "DE")) == Refused(status: 403, reason: "region_blocked"))
        #expect(refused(try rewrap(period1, region: nil)) == Refused(status: 403, reason: "region_unknown"))
        // 17 s in: period 0 ended 11 s ago by its policy's 6 s length, past the 10 s DVR range
        // (by the configured 600 s it would still be running); period 1 still served.
        at(17)
        #expect(refused(try rewrap(period0)) == Refused(status: 403, reason: "live_period_expired"))
        try expectKey(try rewrap(period1), of: period1)
        // 19 s in: the event ended at 8 s, its DVR range at 18 s.
        at(19)
        #expect(refused(try rewrap(period1)) == Refused(status: 403, reason: "live_event_ended"))

        // The audit log names each refusal and keeps no session id, token or key.
        let audit = try String(contentsOfFile: kas.dataDirectory + "/audit.log", encoding: .utf8)
        for reason in ["live_event_not_started", "live_period_not_started", "live_period_expired", "live_event_ended"] {
            #expect(audit.contains(#""reason":"\#(reason)""#), "\(reason)")
        }
        for secret in [session, token] { #expect(!audit.contains(secret)) }
    }

    /// `kas assets add` tells a live directory from a VOD one and refuses a malformed event, each
    /// with a sentence saying what to do; nothing is catalogued.
    @Test func assetsAddRefusesAMismatchedOrMalformedLiveEvent() throws {
        let kas = try KASTestHarness()
        defer { kas.stop() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-live-add-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let stream = try LiveStreamFixture(kas: kas, in: work)
        try ProjectTools.check(runProcess(try ProjectTools.packager(), [
            "package", try ProjectTools.clip(), "--profile", "tdf-hls", "-o", work + "/vod/", "--kas-url", kas.publicURL,
            "--kas-public-key", work + "/kas.pub.pem", "--policy", work + "/policy.json", "--segment-duration", "2", "--quiet",
        ]), "packager")
        func add(_ directory: String, _ extra: [String]) throws -> KASToolHarness.Result {
            try KASToolHarness.run(["assets", "add", directory + "/", "--path", "/x/", "--data-dir", kas.dataDirectory,
                                    "--public-url", kas.publicURL] + extra)
        }
        let cases: [(String, [String], String)] = [
            (stream.directory, [], "is a live stream (its segments carry livePeriod): add it with --live"),
            (work + "/vod", ["--live"], "is not a live stream"),
            (stream.directory, ["--live", "--starts-at", "2026-12-05 19:00"], "expected an RFC 3339 UTC time"),
            (stream.directory, ["--live", "--starts-at", "2026-12-05T19:00:00Z", "--ends-at", "2026-12-05T18:00:00Z"],
             "'--ends-at' must be after '--starts-at'"),
            (stream.directory, ["--live", "--blackout-regions", "de"], "expected ISO 3166-1 alpha-2 codes in upper case"),
            (stream.directory, ["--live", "--blackout-regions", "DE,"], "invalid region ''"),
            (stream.directory, ["--ends-at", "2026-12-05T18:00:00Z"], "'--ends-at' goes with '--live' only"),
        ]
        for (directory, extra, message) in cases {
            let result = try add(directory, extra)
            #expect(result.status != 0 && result.stderr.contains(message), "\(extra): \(result.stderr)")
        }
        #expect(try kas.application.delivery.catalog.entries().isEmpty)
    }

    /// The segment's content key as the openssl CLI unwraps its key access object with the ring's
    /// RSA private key (OAEP, SHA-1): independent of the KAS's code.
    static func opensslKey(_ segment: LiveStreamFixture.Segment, kas: KASTestHarness, work: String) throws -> Data {
        let object = try #require(segment.reader.manifest.encryptionInformation.keyAccess.first)
        let kid = try #require(kas.keyRing.active(.rsa2048)?.kid)
        let wrapped = work + "/wrapped-\(UUID().uuidString.prefix(8)).bin"
        try Base64.decode(object.wrappedKey).write(to: URL(fileURLWithPath: wrapped))
        let unwrap = try runProcess("/usr/bin/openssl", ["pkeyutl", "-decrypt", "-inkey", kas.keyRing.keysDirectory + "/\(kid).pem",
                                                        "-pkeyopt", "rsa_padding_mode:oaep", "-in", wrapped])
        try ProjectTools.check(unwrap, "openssl pkeyutl")
        #expect(unwrap.stdout.count == 32)
        return unwrap.stdout
    }
}
