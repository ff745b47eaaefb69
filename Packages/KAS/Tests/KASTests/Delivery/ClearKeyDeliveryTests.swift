import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// A cmaf package behind a real `kas serve` and nginx (`DeliveryFixture(cmaf: true)`): the
/// catalog entry, the W3C ClearKey licence URL of a playback and its refusals, and the
/// per-playback MPD and HLS playlists, read by PyPI `mpegdash` and `m3u8` and fetched from nginx
/// (docs/delivery.md#the-clearkey-licence-url). One test per server pair, its steps in order.
extension DeliveryTests {
    @Suite(.serialized) struct ClearKey {
        static let allowedOrigin = "https://player.example"

        @Test func cmafCatalogClearKeyLicencesAndPlaybackManifests() throws {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-ck-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: work) }
            let config = work + "/kas.json"
            // The region header is believed from loopback, where the test's requests come from.
            try Data(#"{"cors":{"allowedOrigins":["\#(Self.allowedOrigin)"]},"regionHeader":"X-Region","trustedProxies":["127.0.0.0/8"]}"#.utf8)
                .write(to: URL(fileURLWithPath: config))
            let fixture = try DeliveryFixture(serveArguments: ["--config", config], cmaf: true)
            defer { fixture.stop() }
            let alice = try fixture.token("alice")

            let listed = try DeliveryFixture.tool(["assets", "list", "--data-dir", fixture.dataDirectory]).output
            #expect(listed.contains("\(fixture.assetID) cmaf 4s /talk/ Talk"), "\(listed)")

            let (answer, result) = try start(fixture, token: alice)
            #expect(result.status == 200, "\(result.text)")
            let playback = try #require(answer)
            let keyIDs = try #require(playback["keyIds"]?.object)
            let video = try #require(keyIDs["video"]?.string), audio = try #require(keyIDs["audio"]?.string)
            let licence = try #require(playback["licenseUrl"]?.string)
            #expect(licence.hasPrefix(fixture.kas.address + "/media/v1/playback/\(playback["playbackId"]?.string ?? "-")/clearkey?"))

            try keysDecrypt(fixture, licence: licence, video: video, audio: audio)
            try concurrentLicences(fixture, licence: licence, video: video, audio: audio)
            try licenceRefusals(fixture, alice: alice, playback: playback, video: video)
            try preflight(fixture, licence: licence)
            try manifests(fixture, playback: playback)
            try streamLimitAndEntitlement(fixture, alice: alice, playback: playback)
            try closedRental(fixture)
            try regions(fixture)

            let logs = fixture.writtenLogs
            #expect(!logs.contains("sig="))
            #expect(!logs.contains(alice))
        }

        func start(_ fixture: DeliveryFixture, token: String, asset: String? = nil, headers: [String] = []) throws -> (JSONObject?, CurlResult) {
            let body = JSONWriter.write(.object(JSONObject([
                ("assetId", .string(asset ?? fixture.assetID)), ("drmSystem", .string("clearkey")),
                ("manifestTypes", .array([.string("dash"), .string("hls")])),
            ])))
            let result = try fixture.request("POST", "/media/v1/playback", token: token, body: body,
                                             headers: ["Content-Type: application/json"] + headers)
            return (result.status == 200 ? (try JSONParser.parse(result.body)).object : nil, result)
        }

        static func b64url(hex: String) throws -> String { Base64URL.encode(try Hex.decode(hex)) }

        func licence(_ fixture: DeliveryFixture, _ url: String, kids: [String], headers: [String] = []) throws -> CurlResult {
            let body = JSONWriter.write(.object(JSONObject([("kids", .array(kids.map(JSONValue.string))), ("type", .string("temporary"))])))
            return try fixture.request("POST", url, body: body, headers: ["Content-Type: application/json"] + headers)
        }

        func reason(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["reason"]?.string }

        /// The entitled viewer's licence: every key id asked, each key the one the package wrapped
        /// to the KAS (unwrapped here with the ring's private key through the key path's admission).
        func keysDecrypt(_ fixture: DeliveryFixture, licence url: String, video: String, audio: String) throws {
            let result = try licence(fixture, url, kids: [try Self.b64url(hex: video), try Self.b64url(hex: audio)],
                                     headers: ["Authorization: Bearer ignored"])
            #expect(result.status == 200, "\(result.text)")
            let answer = try #require(try JSONParser.parse(result.body).object)
            #expect(answer["type"]?.string == "temporary")
            let keys = answer["keys"]?.array?.compactMap(\.object) ?? []
            #expect(keys.count == 2)
            let ring = try KeyRing.load(dataDirectory: fixture.dataDirectory)
            let admission = try #require(ManifestAdmission(acceptedKASURLs: [fixture.kas.address],
                                                           unwrapper: KeyRingMediaUnwrapper(KeyRingHolder(ring))))
            let manifest = try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/talk/manifest.json"))
            let admitted = try admission.admit(Array(manifest))
            for (key, (hex, component)) in zip(keys, [(video, "video"), (audio, "audio")]) {
                #expect(key["kty"]?.string == "oct")
                #expect(key["kid"]?.string == (try Self.b64url(hex: hex)))
                let k = try #require(key["k"]?.string)
                #expect(!k.contains("=") && !k.contains("+") && !k.contains("/"))
                let expected = try #require(admitted.component(component)).key.withUnsafeBytes { Data($0) }
                #expect(try Base64URL.decode(k) == expected)
            }
        }

        /// Calls of one licence URL at once, as a CDM that asks for its keys in parallel makes
        /// them (curl's `--parallel`, 16 connections): each starts the components' sessions anew,
        /// and none may find its session ended by another's start (`session_invalid`).
        func concurrentLicences(_ fixture: DeliveryFixture, licence url: String, video: String, audio: String) throws {
            let calls = 48
            let body = JSONWriter.write(.object(JSONObject([
                ("kids", .array([.string(try Self.b64url(hex: video)), .string(try Self.b64url(hex: audio))])), ("type", .string("temporary")),
            ])))
            let bodyFile = fixture.root + "/../licence-body.json"
            try body.write(to: URL(fileURLWithPath: bodyFile))
            // `Curl.run` sends the first answer's body to its own file; the others go to /dev/null.
            let outputs = Array(repeating: ["-o", "/dev/null"], count: calls - 1).flatMap { $0 }
            let result = try Curl.run(["--parallel", "--parallel-immediate", "--parallel-max", "16", "-X", "POST",
                                       "-H", "Content-Type: application/json", "--data-binary", "@" + bodyFile]
                                      + outputs + Array(repeating: url, count: calls), writeOut: "%{http_code}\n")
            let statuses = result.stdout.split(separator: "\n").map(String.init)
            #expect(statuses.count == calls, "\(result.stdout)")
            #expect(statuses.allSatisfy { $0 == "200" }, "\(statuses.sorted())")
        }

        func licenceRefusals(_ fixture: DeliveryFixture, alice: String, playback: JSONObject, video: String) throws {
            let url = try #require(playback["licenseUrl"]?.string)
            let id = try #require(playback["playbackId"]?.string)
            let kid = try Self.b64url(hex: video)
            // An unknown key id, or one of another asset, refuses the whole request.
            let unknown = try licence(fixture, url, kids: [kid, Base64URL.encode(Data(repeating: 7, count: 16))])
            #expect(unknown.status == 403 && reason(unknown) == "key_id_unknown", "\(unknown.text)")
            let foreign = try licence(fixture, url, kids: [try Self.b64url(hex: "00112233445566778899aabbccddeeff")])
            #expect(foreign.status == 403 && reason(foreign) == "key_id_unknown")
            // Not the EME message.
            let malformed = try fixture.request("POST", url, body: Data(#"{"kids":"x"}"#.utf8))
            #expect(malformed.status == 400)
            // A tampered URL: another expiry, another signature, the FairPlay route's purpose.
            let stretched = try licence(fixture, url.replacingOccurrences(of: "expires=", with: "expires=1"), kids: [kid])
            #expect(stretched.status == 403 && reason(stretched) == "license_url_invalid")
            let resigned = try licence(fixture, url.replacingOccurrences(of: "sig=", with: "sig=A"), kids: [kid])
            #expect(resigned.status == 403 && reason(resigned) == "license_url_invalid")
            let fairPlayPath = try licence(fixture, url.replacingOccurrences(of: "/clearkey?", with: "/license/video?"), kids: [kid])
            #expect(fairPlayPath.status == 403 && reason(fairPlayPath) == "license_url_invalid")
            // Another viewer's playback id under this URL's signature.
            let carol = try fixture.token("carol")
            let other = try fixture.post("/media/v1/playback", token: carol, json: [
                ("assetId", .string(fixture.assetID)), ("drmSystem", .string("clearkey"))])
            // The title allows one stream per viewer; carol's is her own.
            #expect(other.status == 200, "\(other.text)")
            let carolPlayback = try #require(try JSONParser.parse(other.body).object)
            let carolID = try #require(carolPlayback["playbackId"]?.string)
            #expect(carolPlayback["dashUrl"] == nil && carolPlayback["hlsUrl"] != nil)
            let swapped = try licence(fixture, url.replacingOccurrences(of: id, with: carolID), kids: [kid])
            #expect(swapped.status == 403 && reason(swapped) == "license_url_invalid")
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(carolID)", token: carol).status == 204)
            // Carol's released playback: its URL is refused.
            let carolURL = try #require(carolPlayback["licenseUrl"]?.string)
            let ended = try licence(fixture, carolURL, kids: [kid])
            #expect(ended.status == 403 && reason(ended) == "playback_ended")
            // An expired URL, signed with the playback store's key (the data directory's file).
            let key = try Data(contentsOf: URL(fileURLWithPath: fixture.dataDirectory + "/license-url.key"))
            let past = Int64(Date().timeIntervalSince1970) - 5
            let query = LicenseURLSigner(key: SecretKey(data: key)).query(.clearKey, playbackID: id, expires: past)
            let expired = try licence(fixture, fixture.kas.address + "/media/v1/playback/\(id)/clearkey?" + query, kids: [kid])
            #expect(expired.status == 403 && reason(expired) == "license_url_expired", "\(expired.text)")
        }

        /// A JSON POST from a page is preflighted: answered for `cors.allowedOrigins`, refused otherwise.
        func preflight(_ fixture: DeliveryFixture, licence url: String) throws {
            func options(_ origin: String) throws -> CurlResult {
                try fixture.request("OPTIONS", url, headers: ["Origin: \(origin)", "Access-Control-Request-Method: POST",
                                                              "Access-Control-Request-Headers: content-type"])
            }
            let allowed = try options(Self.allowedOrigin)
            #expect(allowed.status == 204)
            #expect(allowed.header("Access-Control-Allow-Origin") == Self.allowedOrigin)
            #expect(allowed.header("Access-Control-Allow-Methods")?.contains("POST") == true)
            let refused = try options("https://elsewhere.example")
            #expect(refused.status == 403)
            #expect(refused.header("Access-Control-Allow-Origin") == nil)
        }

        /// The playback's MPD and playlists: read by PyPI mpegdash and m3u8 (Tools/python), every
        /// segment and init URI absolute, signed and fetched 200 from nginx, the MPD's licence URL
        /// the playback's; an unknown name 404, a tampered signature 403.
        func manifests(_ fixture: DeliveryFixture, playback: JSONObject) throws {
            let dash = try #require(playback["dashUrl"]?.string)
            let hls = try #require(playback["hlsUrl"]?.string)
            let checked = try runProcess(try ProjectPython.interpreter(), [ProjectPython.script("playback_manifests.py"), dash, hls])
            #expect(checked.status == 0, "\(checked.stderr)")
            let report = try #require(try JSONParser.parse(checked.stdout).object)
            let urls = report["segmentUrls"]?.array?.compactMap(\.string) ?? []
            #expect(urls.count >= 6, "\(report)")
            for url in Set(urls) {
                #expect(url.hasPrefix(fixture.nginx.url + "/talk/") && url.contains("md5="), "\(url)")
                let fetched = try fixture.request("GET", url)
                #expect(fetched.status == 200, "\(url.prefix { $0 != "?" }): \(fetched.status)")
            }
            let licences = report["licenseUrls"]?.array?.compactMap(\.string) ?? []
            #expect(!licences.isEmpty)
            #expect(licences.allSatisfy { $0.hasPrefix(fixture.kas.address + "/media/v1/playback/\(playback["playbackId"]?.string ?? "-")/clearkey?") })
            #expect((report["playlists"]?.double ?? 0) >= 2)
            let mpd = try fixture.request("GET", dash)
            #expect(mpd.header("Content-Type") == "application/dash+xml")
            #expect(!mpd.text.contains("{{MEDIADRM_CLEARKEY_LICENSE_URL}}"))
            #expect(try fixture.request("GET", dash.replacingOccurrences(of: "manifest.mpd", with: "other.m3u8")).status == 404)
            let tampered = try fixture.request("GET", dash.replacingOccurrences(of: "sig=", with: "sig=A"))
            #expect(tampered.status == 403 && reason(tampered) == "license_url_invalid")
            // The licence URL's signature does not open the manifests.
            let licence = try #require(playback["licenseUrl"]?.string)
            let query = try #require(licence.split(separator: "?").last)
            let crossed = try fixture.request("GET", String(dash.prefix { $0 != "?" }) + "?" + query)
            #expect(crossed.status == 403 && reason(crossed) == "license_url_invalid")
        }

        /// One stream per viewer (`--max-streams 1`), and a viewer without the attribute gets no URL.
        func streamLimitAndEntitlement(_ fixture: DeliveryFixture, alice: String, playback: JSONObject) throws {
            let (second, secondResult) = try start(fixture, token: alice)
            #expect(second == nil && secondResult.status == 429 && reason(secondResult) == "concurrent_streams")
            let (refused, refusedResult) = try start(fixture, token: try fixture.token("mallory", entitled: false))
            #expect(refused == nil && refusedResult.status == 403 && reason(refusedResult) == "not_entitled")
        }

        /// The rental title's purchase window: wide enough that the first licence lands inside it
        /// on a loaded machine (it must, or the test is wrong), short enough to wait out.
        static let purchaseWindow = 12

        /// A rental title (purchase window 12 s): a licence records the first play, so the viewer
        /// who played keeps getting keys after the purchase window closed; one who started a
        /// playback but never asked for a key is refused `rental_purchase_window_closed`.
        func closedRental(_ fixture: DeliveryFixture) throws {
            try ProjectTools.check(runProcess(try ProjectTools.packager(), [
                "package", try ProjectTools.clip(), "--profile", "cmaf", "-o", fixture.root + "/rental/", "--kas-url", fixture.kas.address,
                "--kas-public-key", fixture.publicKeyFile, "--policy", fixture.policyFile, "--segment-duration", "2",
                "--rental-purchase-window", "\(Self.purchaseWindow)", "--rental-playback-window", "3600", "--quiet",
            ]), "packager")
            let asset = try DeliveryFixture.tool(["assets", "add", fixture.root + "/rental/", "--path", "/rental/",
                                                  "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address])
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
            let now = Int64(Date().timeIntervalSince1970)
            func renter(_ name: String) throws -> String {
                try DeliveryFixture.tool(["token", "--sub", name, "--data-dir", fixture.dataDirectory, "--claims",
                                          #"{"entitlements":["\#(DeliveryFixture.gold)"],"rentals":{"\#(asset)":\#(now)}}"#])
                    .output.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let (played, _) = try start(fixture, token: try renter("bob"), asset: asset)
            let (idle, _) = try start(fixture, token: try renter("dave"), asset: asset)
            let bob = try #require(played), dave = try #require(idle)
            let kid = try Self.b64url(hex: try #require(bob["keyIds"]?.object?["video"]?.string))
            #expect(try licence(fixture, try #require(bob["licenseUrl"]?.string), kids: [kid]).status == 200)
            // Past the purchase window, however long the steps above took on a busy machine.
            let closes = Double(now + Int64(Self.purchaseWindow)) + 1
            Thread.sleep(forTimeInterval: max(0, closes - Date().timeIntervalSince1970))
            #expect(try licence(fixture, try #require(bob["licenseUrl"]?.string), kids: [kid]).status == 200)
            let closed = try licence(fixture, try #require(dave["licenseUrl"]?.string), kids: [kid])
            #expect(closed.status == 403 && reason(closed) == "rental_purchase_window_closed", "\(closed.text)")
        }

        /// A title for the US only (`--allowed-regions US`): the licence route decides by the
        /// region the trusted proxy names on the licence request itself, as a key request does.
        func regions(_ fixture: DeliveryFixture) throws {
            try ProjectTools.check(runProcess(try ProjectTools.packager(), [
                "package", try ProjectTools.clip(), "--profile", "cmaf", "-o", fixture.root + "/regional/", "--kas-url", fixture.kas.address,
                "--kas-public-key", fixture.publicKeyFile, "--policy", fixture.policyFile, "--segment-duration", "2",
                "--allowed-regions", "US", "--quiet",
            ]), "packager")
            let asset = try DeliveryFixture.tool(["assets", "add", fixture.root + "/regional/", "--path", "/regional/",
                                                  "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address])
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
            let (answer, result) = try start(fixture, token: try fixture.token("erin"), asset: asset, headers: ["X-Region: US"])
            let playback = try #require(answer, "\(result.text)")
            let url = try #require(playback["licenseUrl"]?.string)
            let kid = try Self.b64url(hex: try #require(playback["keyIds"]?.object?["video"]?.string))
            #expect(try licence(fixture, url, kids: [kid], headers: ["X-Region: US"]).status == 200)
            let abroad = try licence(fixture, url, kids: [kid], headers: ["X-Region: FR"])
            #expect(abroad.status == 403 && reason(abroad) == "region_not_allowed", "\(abroad.text)")
            let unknown = try licence(fixture, url, kids: [kid])
            #expect(unknown.status == 403 && reason(unknown) == "region_unknown", "\(unknown.text)")
        }
    }
}
