import Foundation
@testable import KASDomain
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// The delivery API's FairPlay `processSpcUrl` (docs/delivery.md "The delivery API") against a
/// real `kas serve` and nginx (`DeliveryFixture`), with the FairPlay SDK stand-in answering a
/// CKC: a JW app reads it from `GET /v2/media/{id}?token=` and posts raw SPCs to it with no header.
/// The first SPC starts the playback for the delivery token's viewer (one `playback_start`), the
/// next reuses it; a changed URL, an expired one and a viewer over the title's stream limit are
/// refused with their reasons; the URL shows neither the viewer nor its claims.
@Suite(.serialized) struct ProcessSPCURLTests {
    @Test func processSpcUrlStartsThePlaybackOnItsFirstSPCAndAnswersTheCKC() throws {
        let fixture = try DeliveryFixture(fairPlayMode: "answer")
        defer { fixture.stop() }
        let sdk = try #require(fixture.fairPlaySDK)
        let ckc = try standIn(fixture, answers: 64, for: "video")

        // 1. The description, read with a delivery token as a JW app's backend hands it out.
        let before = Int64(Date().timeIntervalSince1970)
        let processSPC = try processSpcUrl(fixture, subject: "alice")
        let after = Int64(Date().timeIntervalSince1970)
        let url = try #require(URLComponents(string: processSPC))
        let playbackID = try #require(url.path.split(separator: "/").dropLast().last.map(String.init))
        #expect(url.path == "/media/v1/playback/\(playbackID)/spc")
        let ticket = try #require(url.queryItems?.first { $0.name == "viewer" }?.value)
        let expires = try #require(url.queryItems?.first { $0.name == "expires" }?.value.flatMap { Int64($0) })
        // Valid delivery.processSPCURLSeconds (600 by default) from when it was described.
        #expect((before + 600)...(after + 600) ~= expires)
        // Sealed: the subject and the entitlement are not readable in the URL.
        for text in ["alice", DeliveryFixture.gold, "entitlements", "eyJ"] {
            #expect(!processSPC.contains(text))
        }

        // 2. A raw SPC, no header at all: the stand-in's CKC, the SPC given to it.
        let spc = Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        let first = try fixture.request("POST", processSPC, body: spc, headers: ["Content-Type: application/octet-stream"])
        #expect(first.status == 200, "\(first.text)")
        #expect(first.body == ckc)
        #expect(first.header("Content-Type") == "application/octet-stream")
        #expect(SDKTransportTestDouble.requests(in: sdk.directory).contains {
            String(decoding: $0, as: UTF8.self).contains(Base64.encode(spc))
        })

        // 3. The next SPC of the same URL, for the audio key: the same playback (the component
        // tried in order until the SPC's own asset id matches).
        let audioCKC = try standIn(fixture, answers: 48, for: "audio")
        let second = try fixture.request("POST", processSPC, body: spc, headers: ["Content-Type: application/octet-stream"])
        #expect(second.status == 200, "\(second.text)")
        #expect(second.body == audioCKC)
        let starts = fixture.writtenLogs.split(separator: "\n").filter { $0.contains(#""playback_start""#) && $0.contains(#""allow""#) }
        #expect(starts.count == 1)
        // The playback is alice's own (the delivery token's issuer and subject): her bearer renews it.
        let alice = try fixture.token("alice")
        #expect(try fixture.request("POST", "/media/v1/playback/\(playbackID)/media-url", token: alice).status == 200)

        // 4. A changed URL: signature, ticket, expiry or playback id.
        let changed = [
            processSPC.replacingOccurrences(of: "sig=", with: "sig=A"),
            processSPC.replacingOccurrences(of: "viewer=\(ticket)", with: "viewer=\(ticket.dropLast())"),
            processSPC.replacingOccurrences(of: "expires=\(expires)", with: "expires=\(expires + 1)"),
            processSPC.replacingOccurrences(of: playbackID, with: String(playbackID.reversed())),
        ]
        for (index, tampered) in changed.enumerated() {
            let refused = try fixture.request("POST", tampered, body: spc)
            #expect(refused.status == 403 && reason(refused) == "license_url_invalid", "change \(index): \(refused.text)")
        }

        // 5. Expired: the same playback id and ticket, signed with the store's key for a past time.
        let key = try Data(contentsOf: URL(fileURLWithPath: fixture.dataDirectory + "/license-url.key"))
        let past = Int64(Date().timeIntervalSince1970) - 1
        let query = LicenseURLSigner(key: SecretKey(data: key)).query(.processSPC(ticket: ticket), playbackID: playbackID, expires: past)
        let expired = try fixture.request("POST", fixture.kas.address + "/media/v1/playback/\(playbackID)/spc?viewer=\(ticket)&" + query,
                                          body: spc)
        #expect(expired.status == 403 && reason(expired) == "license_url_expired", "\(expired.text)")

        // 6. The title allows one stream: alice's second description's URL starts no second playback.
        let another = try processSpcUrl(fixture, subject: "alice")
        #expect(another != processSPC)
        let over = try fixture.request("POST", another, body: spc)
        #expect(over.status == 429 && reason(over) == "concurrent_streams", "\(over.text)")
        // Bob, another viewer, is under his own limit.
        let bob = try fixture.request("POST", try processSpcUrl(fixture, subject: "bob"), body: spc)
        #expect(bob.status == 200 && bob.body == audioCKC, "\(bob.text)")

        // 7. Released with alice's bearer: the URL's playback is not started again.
        #expect(try fixture.request("DELETE", "/media/v1/playback/\(playbackID)", token: alice).status == 204)
        let ended = try fixture.request("POST", processSPC, body: spc)
        #expect(ended.status == 403 && reason(ended) == "playback_ended", "\(ended.text)")

        // 8. No ticket, signature or subject in the logs.
        let logs = fixture.writtenLogs
        for (label, text) in [("ticket", String(ticket.prefix(40))), ("a URL signature", "sig="), ("the subject", "\"alice\"")] {
            #expect(!logs.contains(text), "\(label) is in the logs")
        }
    }

    /// With `delivery.signedCertificateURL` the description's `certificateUrl` is signed for the
    /// viewer and playback of its `processSpcUrl`: it answers the DER certificate before the first
    /// SPC (a JW app fetches it first), a changed one is refused, and the open URL stays closed.
    @Test func signedCertificateURLOfTheDescriptionAnswersBeforeTheFirstSPC() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-spc-cert-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let config = work + "/kas.json"
        try Data(#"{"delivery": {"signedCertificateURL": true, "processSPCURLSeconds": 120}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let fixture = try DeliveryFixture(serveArguments: ["--config", config], fairPlayMode: "answer")
        defer { fixture.stop() }
        let ckc = try standIn(fixture, answers: 32, for: "video")
        let before = Int64(Date().timeIntervalSince1970)
        let fairPlay = try described(fixture, subject: "alice")
        let after = Int64(Date().timeIntervalSince1970)
        let processSPC = try #require(URLComponents(string: fairPlay.processSpcUrl))
        let expires = try #require(processSPC.queryItems?.first { $0.name == "expires" }?.value.flatMap { Int64($0) })
        #expect((before + 120)...(after + 120) ~= expires, "delivery.processSPCURLSeconds from the file")
        let playbackID = try #require(processSPC.path.split(separator: "/").dropLast().last.map(String.init))
        #expect(fairPlay.certificateUrl.hasPrefix(fixture.kas.address + "/media/v1/certificate/\(playbackID)?viewer="))

        let certificate = try fixture.request("GET", fairPlay.certificateUrl)
        #expect(certificate.status == 200, "\(certificate.text)")
        #expect(certificate.body == (try Data(contentsOf: URL(fileURLWithPath: fixture.work + "/app-cert.der"))))
        let open = try fixture.request("GET", "/media/v1/certificate")
        #expect(open.status == 403 && reason(open) == "certificate_url_unsigned", "\(open.text)")
        // Its signature opens neither the certificate of another purpose nor the licence.
        let changed = try fixture.request("GET", fairPlay.certificateUrl.replacingOccurrences(of: "expires=", with: "expires=1"))
        #expect(changed.status == 403 && reason(changed) == "license_url_invalid", "\(changed.text)")
        let asLicence = fairPlay.certificateUrl.replacingOccurrences(of: "/media/v1/certificate/\(playbackID)?",
                                                                     with: "/media/v1/playback/\(playbackID)/spc?")
        let crossed = try fixture.request("POST", asLicence, body: Data([1, 2, 3]))
        #expect(crossed.status == 403 && reason(crossed) == "license_url_invalid", "\(crossed.text)")

        let licensed = try fixture.request("POST", fairPlay.processSpcUrl, body: Data((0..<100).map { UInt8($0) }))
        #expect(licensed.status == 200 && licensed.body == ckc, "\(licensed.text)")
    }

    /// The FairPlay source's `processSpcUrl` of `GET /v2/media/{id}?token=` for `subject`
    /// (a `kas sign-url` delivery token with the title's entitlement).
    func processSpcUrl(_ fixture: DeliveryFixture, subject: String) throws -> String {
        try described(fixture, subject: subject).processSpcUrl
    }

    /// The FairPlay source of `GET /v2/media/{id}?token=` for `subject`, decoded with JW's struct.
    func described(_ fixture: DeliveryFixture, subject: String) throws -> JWDeliveryAPI.FairPlay {
        let claims = #"{"entitlements":["\#(DeliveryFixture.gold)"]}"#
        let described = try DeliveryFixture.tool(["sign-url", "--sub", subject, "--asset", fixture.assetID, "--claims", claims,
                                                  "--delivery-secret-file", fixture.deliverySecretFile,
                                                  "--public-url", fixture.kas.address]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try fixture.request("GET", described)
        #expect(result.status == 200, "\(result.text)")
        let answer = try JSONDecoder().decode(JWDeliveryAPI.self, from: result.body)
        return try #require(answer.playlist.first?.sources.compactMap(\.drm.fairplay).first)
    }

    /// Has the SDK stand-in answer a CKC of `count` bytes (its own for each count) to every SPC,
    /// with the SPC's asset id naming `component`; returns the CKC.
    func standIn(_ fixture: DeliveryFixture, answers count: Int, for component: String) throws -> Data {
        let sdk = try #require(fixture.fairPlaySDK)
        let ckc = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ count) })
        try SDKTransportTestDouble.writeAnswers(in: sdk.directory, ckc: ckc, spcAssetID: "\(fixture.assetID)/\(component)")
        return ckc
    }

    func reason(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["reason"]?.string }
}
