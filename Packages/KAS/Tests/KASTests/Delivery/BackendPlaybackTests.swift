import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// DRM-X's backend call (docs/delivery.md "DRM-X's backend call") against a real `kas serve` and
/// nginx (`DeliveryFixture`), with the FairPlay SDK stand-in answering a CKC: a customer backend,
/// authenticated by its configured Basic credential, starts a FairPlay playback for its viewer
/// with DRM-X's members, and the app-side URLs of the answer work without any bearer (the signed
/// certificate, the HLS view, the raw SPC → CKC licence, the signed release). Wrong, missing
/// and viewer credentials get 401; a refused viewer its refusal; each client its own budget; and
/// neither the credential nor the customer's unknown members reach a log.
@Suite(.serialized) struct BackendPlaybackTests {
    static let secret = "6f1c0e5b9a2d4c7e8b3f1a0d9c8e7b6a5f4e3d2c1b0a99887766554433221100"
    static let otherSecret = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
    static let issuer = "https://school.example"
    /// Values of members our API does not know: they must appear in no log.
    static let unknownTop = "customer-order-ref-91c2d7"
    static let unknownViewer = "favourite-colour-7f3a55"

    @Test func drmxBackendCallStartsAPlaybackWhoseURLsWork() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-backend-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        for (name, secret) in [("school.secret", Self.secret), ("other.secret", Self.otherSecret)] {
            _ = FileManager.default.createFile(atPath: work + "/" + name, contents: Data((secret + "\n").utf8),
                                               attributes: [.posixPermissions: 0o600])
        }
        let config = work + "/kas.json"
        try Data(#"""
        {"delivery": {"signedCertificateURL": true, "backendClients": [
          {"id": "school-backend", "secretFile": "school.secret", "issuer": "\#(Self.issuer)", "callsPerMinute": 8},
          {"id": "other-backend", "secretFile": "other.secret", "issuer": "https://other.example"}]}}
        """#.utf8).write(to: URL(fileURLWithPath: config))
        let fixture = try DeliveryFixture(serveArguments: ["--config", config], fairPlayMode: "answer")
        defer { fixture.stop() }
        let sdk = try #require(fixture.fairPlaySDK)
        let ckc = Data((0..<64).map { UInt8($0) ^ 0x5A })
        try SDKTransportTestDouble.writeAnswers(in: sdk.directory, ckc: ckc, spcAssetID: "\(fixture.assetID)/video")
        let school = "Authorization: Basic " + Base64.encode(Data("school-backend:\(Self.secret)".utf8))

        // 1. The call as DRM-X's backend makes it, with members of the customer's own.
        let started = try call(fixture, header: school, viewer: [
            ("subject", .string("alice")), ("entitlements", .array([.string(DeliveryFixture.gold)])),
            ("favouriteColour", .string(Self.unknownViewer)),
        ], extra: [("customerOrderRef", .string(Self.unknownTop))])
        #expect(started.status == 200, "\(shown(started))")
        let playback = try #require(try JSONParser.parse(started.body).object)
        let playbackID = try #require(playback["playbackId"]?.string)
        #expect(playback["drmSystem"]?.string == "fairplay" && playback["contentType"]?.string == "vod")
        #expect(playback["heartbeatUrl"] == nil)
        let hls = try #require(playback["hlsManifestUrl"]?.string)
        #expect(playback["hlsUrl"]?.string == hls)
        let certificateURL = try #require(playback["certificateUrl"]?.string)
        #expect(certificateURL.hasPrefix(fixture.kas.address + "/media/v1/certificate/\(playbackID)?expires="))
        let licence = try #require(playback["licenseUrl"]?.string)
        let release = try #require(playback["releaseUrl"]?.string)
        #expect(release.hasPrefix(fixture.kas.address + "/media/v1/playback/\(playbackID)/release?expires="))

        // 2. The app's steps, with no header at all: certificate, HLS view, SPC → CKC.
        let certificate = try fixture.request("GET", certificateURL)
        #expect(certificate.status == 200)
        #expect(certificate.body == (try Data(contentsOf: URL(fileURLWithPath: fixture.work + "/app-cert.der"))))
        let open = try fixture.request("GET", "/media/v1/certificate")
        #expect(open.status == 403 && reason(open) == "certificate_url_unsigned", "\(shown(open))")
        let forged = try fixture.request("GET", certificateURL.replacingOccurrences(of: "expires=", with: "expires=1"))
        #expect(forged.status == 403 && reason(forged) == "license_url_invalid", "\(shown(forged))")
        let master = try fixture.request("GET", hls)
        #expect(master.status == 200 && master.text.hasPrefix("#EXTM3U"), "\(master.status)")
        let spc = Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let licensed = try fixture.request("POST", licence, body: spc, headers: ["Content-Type: application/octet-stream"])
        #expect(licensed.status == 200, "\(shown(licensed))")
        #expect(licensed.body == ckc)
        #expect(SDKTransportTestDouble.requests(in: sdk.directory).contains { String(decoding: $0, as: UTF8.self).contains(Base64.encode(spc)) })

        // 3. The signed release ends it: its URLs are refused from then on.
        let released = try fixture.request("POST", release)
        #expect(released.status == 204, "\(shown(released))")
        #expect(reason(try fixture.request("GET", certificateURL)) == "playback_ended")
        #expect(reason(try fixture.request("POST", licence, body: spc)) == "playback_ended")
        #expect(try fixture.request("POST", release).status == 403)

        // 4. Credentials: missing, wrong secret, unknown client, a viewer's bearer: one fixed 401.
        let wrong = "Authorization: Basic " + Base64.encode(Data("school-backend:\(Self.otherSecret)".utf8))
        let unknown = "Authorization: Basic " + Base64.encode(Data("nobody:\(Self.secret)".utf8))
        let bearer = "Authorization: Bearer " + (try fixture.token("alice"))
        // (The cases are named, never printed: a credential stays out of the test output too.)
        for (label, header) in [("missing", nil), ("wrong secret", wrong), ("unknown client", unknown), ("viewer bearer", bearer)] {
            let refused = try call(fixture, header: header, viewer: [("subject", .string("alice"))])
            #expect(refused.status == 401, "\(label): \(shown(refused))")
            #expect(errorText(refused) == "backend credential refused")
            #expect(refused.header("WWW-Authenticate") == #"Basic realm="kas-backend""#)
        }

        // 5. A viewer the title refuses gets the refusal and no URL; a vod title asked as live is refused.
        let mallory = try call(fixture, header: school, viewer: [("subject", .string("mallory"))])
        #expect(mallory.status == 403 && reason(mallory) == "not_entitled", "\(shown(mallory))")
        #expect(!mallory.text.contains("Url"))
        let live = try call(fixture, header: school, viewer: [("subject", .string("alice"))], contentType: "live")
        #expect(live.status == 400 && errorText(live)?.contains("not live") == true, "\(shown(live))")

        // 6. contentId as the short media id, for another viewer of the same backend.
        let mediaID = try #require(playback["mediaId"]?.string)
        let bob = try call(fixture, header: school, viewer: [
            ("subject", .string("bob")), ("entitlements", .array([.string(DeliveryFixture.gold)])),
        ], contentID: mediaID)
        #expect(bob.status == 200, "\(shown(bob))")

        // 7. Each client its own budget (8 a minute): this one runs out, the other does not.
        var limited: CurlResult?
        for _ in 0..<12 where limited == nil {
            let burst = try call(fixture, header: school, viewer: [("subject", .string("alice"))], contentType: "bogus")
            if burst.status == 429 { limited = burst } else { #expect(burst.status == 400, "\(shown(burst))") }
        }
        let tooMany = try #require(limited)
        #expect(tooMany.header("Retry-After") != nil)
        let other = "Authorization: Basic " + Base64.encode(Data("other-backend:\(Self.otherSecret)".utf8))
        let carol = try call(fixture, header: other, viewer: [("subject", .string("carol"))], contentType: "bogus")
        #expect(carol.status == 400, "\(shown(carol))")

        // 8. The playbacks were started and audited as a viewer's are; no secret or unknown member was written.
        let logs = fixture.writtenLogs
        #expect(logs.split(separator: "\n").filter { $0.contains(#""playback_start""#) && $0.contains(#""allow""#) }.count == 2)
        // The backend's calls are in the request log, under the viewer each was for (its issuer the client's).
        let alice = Identity(subject: "alice", issuer: Self.issuer).viewerHash
        #expect(logs.split(separator: "\n").contains { $0.contains("/media/v1/backend/playback") && $0.contains(alice) })
        for (label, text) in [("secret", Self.secret), ("other secret", Self.otherSecret), ("credential", String(school.dropFirst(21))),
                              ("wrong credential", String(wrong.dropFirst(21))), ("unknown member", Self.unknownTop),
                              ("unknown viewer member", Self.unknownViewer), ("unknown member name", "customerOrderRef"),
                              ("unknown viewer member name", "favouriteColour"), ("a URL signature", "sig=")] {
            #expect(!logs.contains(text), "\(label) is in the logs")
        }
    }

    /// DRM-X's `contentType: live` on a live title of the catalog (a real `packager live` stream
    /// catalogued with `kas assets add --live`, docs/live.md): served as a live playback (tdf, the
    /// live master playlist); asked as `vod`, refused with the reason.
    @Test func liveContentTypeIsServedForLiveTitles() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-backend-live-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let secretFile = work + "/school.secret"
        _ = FileManager.default.createFile(atPath: secretFile, contents: Data(Self.secret.utf8), attributes: [.posixPermissions: 0o600])
        let kas = try KASTestHarness(configure: {
            $0.delivery.backendClients = [BackendClient(id: "school-backend", secretFile: secretFile, issuer: Self.issuer)]
        })
        defer { kas.stop() }
        let stream = try LiveStreamFixture(kas: kas, in: work)
        let added = try KASToolHarness.run(["assets", "add", stream.directory + "/", "--path", "/match/", "--title", "Match", "--live",
                                            "--data-dir", kas.dataDirectory, "--public-url", kas.publicURL])
        #expect(added.status == 0, "\(added.stderr)")
        let asset = added.output.trimmingCharacters(in: .whitespacesAndNewlines)

        func call(_ contentType: String) throws -> CurlResult {
            let body = JSONValue.object(JSONObject([
                ("viewer", .object(JSONObject([("subject", .string("fan")), ("entitlements", .array([.string(LiveStreamFixture.attribute)]))]))),
                ("contentId", .string(asset)), ("contentType", .string(contentType)), ("drmSystem", .string("tdf")),
                ("manifestTypes", .array([.string("hls")])), ("clientPlatform", .string("ios")),
            ]))
            return try Curl.run(["-X", "POST", "-H", "Content-Type: application/json",
                                 "-H", "Authorization: Basic " + Base64.encode(Data("school-backend:\(Self.secret)".utf8)),
                                 "--data-binary", "@-", kas.url("/media/v1/backend/playback")], stdin: JSONWriter.write(body))
        }
        let vod = try call("vod")
        #expect(vod.status == 400 && errorText(vod) == "this title is live: ask for contentType live", "\(shown(vod))")
        let live = try call("live")
        #expect(live.status == 200, "\(shown(live))")
        let playback = try #require(try JSONParser.parse(live.body).object)
        // (Answers hold signed URLs: none is printed.)
        #expect(playback["contentType"]?.string == "live" && playback["live"]?.object != nil)
        #expect(playback["mediaUrl"]?.string?.hasSuffix("/match/master.m3u8") == true)
    }

    /// `POST /media/v1/backend/playback` with DRM-X's members (`drmSystem` fairplay,
    /// `manifestTypes` `["hls"]`, `clientPlatform` ios) for `viewer`, with the `Authorization`
    /// header `header` (none when nil).
    func call(_ fixture: DeliveryFixture, header: String?, viewer: [(String, JSONValue)], contentID: String? = nil,
              contentType: String = "vod", extra: [(String, JSONValue)] = []) throws -> CurlResult {
        let body = JSONWriter.write(.object(JSONObject([
            ("viewer", .object(JSONObject(viewer))), ("contentId", .string(contentID ?? fixture.assetID)),
            ("contentType", .string(contentType)), ("drmSystem", .string("fairplay")),
            ("manifestTypes", .array([.string("hls")])), ("clientPlatform", .string("ios")),
        ] + extra)))
        return try fixture.request("POST", "/media/v1/backend/playback", body: body,
                                   headers: ["Content-Type: application/json"] + (header.map { [$0] } ?? []))
    }

    /// A result's body for a failure message, unless it is a playback: its signed URLs stay out of the output.
    func shown(_ result: CurlResult) -> String { result.status == 200 ? "status 200" : result.text }

    func reason(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["reason"]?.string }
    func errorText(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["error"]?.string }
}
