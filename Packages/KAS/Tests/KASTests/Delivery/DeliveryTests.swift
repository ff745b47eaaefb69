import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import Testing

@Suite enum DeliveryTests {}

/// The delivery routes and the signed origin (docs/delivery.md) against one real deployment
/// (`DeliveryFixture`: `kas serve` and Debian's nginx on loopback, a real package). One test per
/// server pair, its steps in order, so the two servers start once and always stop.
extension DeliveryTests {
    @Suite(.serialized) struct Deployment {
        @Test func catalogPlaybacksOriginLicenceURLsAndTheDeliveryAPI() throws {
            let fixture = try DeliveryFixture()
            defer { fixture.stop() }
            let alice = try fixture.token("alice")

            try catalogList(fixture)
            let signedURL = try originChecks(fixture, alice: alice)
            try refusedViewer(fixture)
            try deliveryTokens(fixture)
            try licenceURLs(fixture, alice: alice)
            try clearKeyOnFPSv2(fixture)
            try releaseFreesTheStreamSlot(fixture, alice: alice)
            try catalogueFromAURL(fixture, signedURL: signedURL)

            // No secret reached the KAS's log or the audit log.
            let logs = fixture.writtenLogs
            #expect(!logs.isEmpty)
            #expect(!logs.contains(alice))
            #expect(!logs.contains(try fixture.originSecret(slot: 1)))
            let query = try #require(signedURL.split(separator: "?").last)
            #expect(!logs.contains(String(query)))
            #expect(!logs.contains("sig="))
            #expect(!logs.contains("token="))
        }

        /// `kas assets list` shows what `assets add` read from the package.
        func catalogList(_ fixture: DeliveryFixture) throws {
            let listed = try DeliveryFixture.tool(["assets", "list", "--data-dir", fixture.dataDirectory, "--json"]).output
            let items = try #require(try JSONParser.parse(Data(listed.utf8)).array)
            #expect(items.count == 1)
            let item = try #require(items.first?.object)
            #expect(item["assetId"]?.string == fixture.assetID)
            #expect(item["title"]?.string == "Talk")
            #expect(item["profile"]?.string == "fps-v2")
            #expect(item["path"]?.string == "/talk.tdf")
            #expect(item["components"] == .array([.string("video"), .string("audio")]))
            #expect((item["duration"]?.double ?? 0) > 3)
        }

        /// `kas assets add URL` reads the package over HTTP (here the origin's signed URL) and
        /// replaces the asset's entry; a refused fetch names the status, never the URL's query.
        func catalogueFromAURL(_ fixture: DeliveryFixture, signedURL: String) throws {
            let (playback, _) = try fixture.startPlayback(token: try fixture.token("erin"))
            let fresh = try #require(playback?["mediaUrl"]?.string)
            let added = try DeliveryFixture.tool(["assets", "add", fresh, "--path", "/talk.tdf",
                                                  "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address])
            #expect(added.output.trimmingCharacters(in: .whitespacesAndNewlines) == fixture.assetID)
            let listed = try DeliveryFixture.tool(["assets", "list", "--data-dir", fixture.dataDirectory]).output
            #expect(listed.contains("\(fixture.assetID) fps-v2") && listed.hasSuffix(" talk\n"), "\(listed)")
            let unsigned = try KASToolHarness.run(["assets", "add", fixture.nginx.url + "/talk.tdf", "--path", "/talk.tdf",
                                                   "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address])
            #expect(unsigned.status == 1)
            #expect(unsigned.stderr.contains("answered HTTP 403"), "\(unsigned.stderr)")
            let tampered = try KASToolHarness.run(["assets", "add", signedURL.replacingOccurrences(of: "expires=", with: "expires=9"), "--path", "/talk.tdf",
                                                   "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address])
            #expect(tampered.status == 1)
            #expect(tampered.stderr.contains("answered HTTP 403") && !tampered.stderr.contains("md5="), "\(tampered.stderr)")
        }

        /// nginx: 206 for a valid Range read of the signed URL, 403 for expired, tampered,
        /// another path and unsigned; a rotated secret keeps the old slot's URLs valid.
        func originChecks(_ fixture: DeliveryFixture, alice: String) throws -> String {
            let (playback, result) = try fixture.startPlayback(token: alice)
            #expect(result.status == 200, "\(result.text)")
            let description = try #require(playback)
            let mediaURL = try #require(description["mediaUrl"]?.string)
            #expect(mediaURL.hasPrefix(fixture.nginx.url + "/talk.tdf?md5="))

            let range = try fixture.request("GET", mediaURL, headers: ["Range: bytes=100-1099"])
            #expect(range.status == 206)
            #expect(range.body == fixture.packageBytes.subdata(in: 100..<1100))
            #expect(range.header("Content-Range") == "bytes 100-1099/\(fixture.packageBytes.count)")

            let components = try #require(URLComponents(string: mediaURL))
            let md5 = try #require(components.queryItems?.first { $0.name == "md5" }?.value)
            let expires = try #require(components.queryItems?.first { $0.name == "expires" }?.value)
            // The KAS's md5 is nginx's: recomputed by the openssl CLI from the secret file.
            let secret = try fixture.originSecret(slot: 1)
            #expect(md5 == (try DeliveryFixture.nginxMD5("\(expires)/talk.tdf \(secret)")))

            let base = fixture.nginx.url
            let past = Int(Date().timeIntervalSince1970) - 60
            let expired = "\(base)/talk.tdf?md5=\(try DeliveryFixture.nginxMD5("\(past)/talk.tdf \(secret)"))&expires=\(past)&slot=1"
            #expect(try fixture.request("GET", expired, headers: ["Range: bytes=0-9"]).status == 403)
            var tampered = Array(md5)
            tampered[0] = tampered[0] == "A" ? "B" : "A"
            let tamperedURL = mediaURL.replacingOccurrences(of: "md5=\(md5)", with: "md5=\(String(tampered))")
            #expect(try fixture.request("GET", tamperedURL, headers: ["Range: bytes=0-9"]).status == 403)
            let later = mediaURL.replacingOccurrences(of: "expires=\(expires)", with: "expires=\((Int(expires) ?? 0) + 1)")
            #expect(try fixture.request("GET", later, headers: ["Range: bytes=0-9"]).status == 403)
            let otherPath = mediaURL.replacingOccurrences(of: "/talk.tdf?", with: "/other.tdf?")
            #expect(try fixture.request("GET", otherPath, headers: ["Range: bytes=0-9"]).status == 403)
            #expect(try fixture.request("GET", base + "/talk.tdf", headers: ["Range: bytes=0-9"]).status == 403)
            #expect(try fixture.request("GET", base + "/other.tdf").status == 403)
            // nginx logged every request above by its path, never its signature (a credential
            // until it expires).
            let accessLog = try String(contentsOfFile: DeliveryFixture.accessLog(fixture.work), encoding: .utf8)
            #expect(accessLog.contains("\"GET /talk.tdf HTTP/1.1\" 206 1000"), "\(accessLog)")
            #expect(!accessLog.contains(md5) && !accessLog.contains("md5=") && !accessLog.contains("expires="), "\(accessLog)")

            // Rotation: a fresh secret in slot 2, nginx reloaded; URLs of slot 1 stay valid and
            // slot 2 signs too.
            try DeliveryFixture.tool(["origin-config", "--root", fixture.root, "--secret-file", fixture.originSecretFile,
                                      "--listen", "127.0.0.1:1", "--rotate"])
            let rotated = try fixture.originSecret(slot: 2)
            #expect(rotated != secret)
            let slot2 = "\(base)/talk.tdf?md5=\(try DeliveryFixture.nginxMD5("\(expires)/talk.tdf \(rotated)"))&expires=\(expires)&slot=2"
            fixture.nginx.reload()
            // Bounded poll: nginx's new workers take the reloaded secret a moment after SIGHUP.
            var reloaded = false
            for _ in 0..<400 where !reloaded {
                reloaded = try fixture.request("GET", slot2, headers: ["Range: bytes=0-9"]).status == 206
                if !reloaded { usleep(50_000) }
            }
            #expect(reloaded, "nginx did not accept slot 2 after its reload")
            #expect(try fixture.request("GET", mediaURL, headers: ["Range: bytes=0-9"]).status == 206)
            let wrongSlot = slot2.replacingOccurrences(of: "slot=2", with: "slot=1")
            #expect(try fixture.request("GET", wrongSlot, headers: ["Range: bytes=0-9"]).status == 403)

            // Renewal: a fresh URL for a live playback of this viewer only.
            let playbackID = try #require(description["playbackId"]?.string)
            let renewed = try fixture.post("/media/v1/playback/\(playbackID)/media-url", token: alice, json: [])
            #expect(renewed.status == 200)
            let renewedURL = try #require(try JSONParser.parse(renewed.body).object?["mediaUrl"]?.string)
            #expect(try fixture.request("GET", renewedURL, headers: ["Range: bytes=0-9"]).status == 206)
            // The policy runs again at renewal: the same viewer, whose token lost the entitlement
            // since the start, gets its reason and no URL.
            let withdrawn = try fixture.token("alice", entitled: false)
            let refused = try fixture.post("/media/v1/playback/\(playbackID)/media-url", token: withdrawn, json: [])
            #expect(refused.status == 403)
            #expect(try JSONParser.parse(refused.body).object?["reason"]?.string == "not_entitled")
            #expect(!refused.text.contains("md5="))
            let carol = try fixture.token("carol")
            #expect(try fixture.post("/media/v1/playback/\(playbackID)/media-url", token: carol, json: []).status == 404)
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(playbackID)", token: alice).status == 204)
            #expect(try fixture.post("/media/v1/playback/\(playbackID)/media-url", token: alice, json: []).status == 404)
            return mediaURL
        }

        /// A viewer without the entitlement gets a reason and no URL, from both APIs.
        func refusedViewer(_ fixture: DeliveryFixture) throws {
            let bob = try fixture.token("bob", entitled: false)
            let (playback, result) = try fixture.startPlayback(token: bob)
            #expect(playback == nil)
            #expect(result.status == 403)
            let body = try #require(try JSONParser.parse(result.body).object)
            #expect(body["reason"]?.string == "not_entitled")
            #expect(body["mediaUrl"] == nil && !result.text.contains("md5="))

            let described = try fixture.request("GET", "/v2/media/\(fixture.assetID)", token: bob)
            #expect(described.status == 403)
            #expect(try JSONParser.parse(described.body).object?["reason"]?.string == "not_entitled")
            #expect(!described.text.contains("md5="))
        }

        /// `kas sign-url` URLs describe the asset (sources shuffled, picked by DRM system); a
        /// token of another `sub` is checked for that viewer, and another `resource`, an old
        /// `exp` or one more than ten minutes ahead are refused.
        func deliveryTokens(_ fixture: DeliveryFixture) throws {
            let claims = #"{"entitlements":["\#(DeliveryFixture.gold)"]}"#
            let url = try DeliveryFixture.tool(["sign-url", "--sub", "alice", "--asset", fixture.assetID, "--claims", claims,
                                                "--delivery-secret-file", fixture.deliverySecretFile,
                                                "--public-url", fixture.kas.address]).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(url.hasPrefix(fixture.kas.address + "/v2/media/\(fixture.assetID)?token="))
            var orders: Set<[String]> = []
            for _ in 0..<12 {
                let result = try fixture.request("GET", url)
                #expect(result.status == 200, "\(result.text)")
                let body = try #require(try JSONParser.parse(result.body).object)
                #expect(body["kind"]?.string == "Single Item")
                #expect(body["title"]?.string == "Talk")
                let item = try #require(body["playlist"]?.array?.first?.object)
                #expect(item["mediaid"]?.string.flatMap(MediaID.init) != nil, "JW's media id: the short one")
                #expect(item["tracks"] == .array([]))
                let sourceValues = try #require(item["sources"]?.array)
                // The views (after the DRM sources, an empty `drm`) name the playback route for their forms.
                let sources = sourceValues.compactMap { $0.object }.filter { $0["playback"] == nil }
                let views = sourceValues.compactMap { $0.object }.filter { $0["playback"] != nil }
                #expect(views.allSatisfy { $0["drm"] == .object(JSONObject()) })
                #expect(views.map { $0["type"]?.string ?? "" } == ["application/vnd.apple.mpegurl", "application/dash+xml"])
                #expect(views.allSatisfy { $0["file"]?.string == fixture.kas.address + "/media/v1/playback" })
                #expect(views.compactMap { $0["playback"]?.object?["urlMember"]?.string } == ["hlsUrl", "dashUrl"])
                let systems = sources.compactMap { $0["drm"]?.object?.keys.first }
                #expect(Set(systems) == ["fairplay", "com.arkavo.tdf", "org.w3.clearkey"])
                orders.insert(systems)
                for source in sources {
                    #expect(source["type"]?.string == "application/vnd.apple.mpegurl")
                    let file = try #require(source["file"]?.string)
                    #expect(try fixture.request("GET", file, headers: ["Range: bytes=0-9"]).status == 206)
                }
            }
            // 12 draws of 3! orders: all equal has probability 6^-11.
            #expect(orders.count > 1)

            let key = try DeliveryTokenKey.load(path: fixture.deliverySecretFile)
            let resource = "/v2/media/\(fixture.assetID)"
            let entitled = try JSONParser.parse(Data(claims.utf8)).object ?? JSONObject()
            func status(_ token: String, path: String? = nil) throws -> CurlResult {
                try fixture.request("GET", (path ?? resource) + "?token=" + token)
            }
            // Another viewer, unentitled: the entitlement is checked for the token's sub.
            let dave = try key.sign(resource: resource, subject: "dave", lifetime: 300)
            let refused = try status(dave)
            #expect(refused.status == 403)
            #expect(try JSONParser.parse(refused.body).object?["reason"]?.string == "not_entitled")
            // Another resource.
            let other = try key.sign(resource: "/v2/media/00000000-0000-4000-8000-000000000000", subject: "alice",
                                     claims: entitled, lifetime: 300)
            #expect(try status(other).status == 401)
            // An old exp, and one more than ten minutes ahead (signed here with the same key).
            let old = try key.sign(resource: resource, subject: "alice", claims: entitled, lifetime: 60,
                                   now: Date().addingTimeInterval(-3600))
            #expect(try status(old).status == 401)
            let long = try key.sign(resource: resource, subject: "alice", claims: entitled, lifetime: 600,
                                    now: Date().addingTimeInterval(1200))
            #expect(try status(long).status == 401)
            // A bearer token of the KAS's issuer is not a delivery token.
            #expect(try status(try fixture.token("alice")).status == 401)
        }

        /// The FairPlay licence URL: its checks (signature, playback, component, release) come
        /// before the FairPlay module, which this KAS has not (503).
        func licenceURLs(_ fixture: DeliveryFixture, alice: String) throws {
            let (aliceFP, result) = try fixture.startPlayback(token: alice, drmSystem: "fairplay")
            #expect(result.status == 200, "\(result.text)")
            let playback = try #require(aliceFP)
            #expect(playback["certificateUrl"]?.string == fixture.kas.address + "/media/v1/certificate")
            let urls = try #require(playback["licenseUrls"]?.object)
            let video = try #require(urls["video"]?.string)
            let audio = try #require(urls["audio"]?.string)
            #expect(playback["licenseUrl"]?.string == video)
            let spc = Data(repeating: 0x5A, count: 64)
            func post(_ url: String) throws -> CurlResult {
                try fixture.request("POST", url, body: spc, headers: ["Content-Type: application/octet-stream"])
            }
            func reason(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["reason"]?.string }
            // Valid: every check passes, then the module is missing.
            let valid = try post(video)
            #expect(valid.status == 503)
            #expect(try post(audio).status == 503)
            // Another component with this URL's signature.
            let swapped = try post(video.replacingOccurrences(of: "/license/video?", with: "/license/audio?"))
            #expect(swapped.status == 403 && reason(swapped) == "license_url_invalid")
            // Another playback's id with this signature.
            let carol = try fixture.token("carol")
            let (carolFP, _) = try fixture.startPlayback(token: carol, drmSystem: "fairplay")
            let carolID = try #require(carolFP?["playbackId"]?.string)
            let aliceID = try #require(playback["playbackId"]?.string)
            let foreign = try post(video.replacingOccurrences(of: aliceID, with: carolID))
            #expect(foreign.status == 403 && reason(foreign) == "license_url_invalid")
            // A later expiry than signed.
            let stretched = try post(video.replacingOccurrences(of: "expires=", with: "expires=1"))
            #expect(stretched.status == 403 && reason(stretched) == "license_url_invalid")
            // After release.
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(aliceID)", token: alice).status == 204)
            let released = try post(video)
            #expect(released.status == 403 && reason(released) == "playback_ended")
            // Releasing twice, or another viewer's playback: 404.
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(aliceID)", token: alice).status == 404)
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(carolID)", token: alice).status == 404)
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(carolID)", token: carol).status == 204)
        }

        /// An fps-v2 title keeps its key ids: `drmSystem: clearkey` answers the W3C ClearKey
        /// licence URL, which answers both components' keys (DeliveryTests.ClearKey covers its rules).
        func clearKeyOnFPSv2(_ fixture: DeliveryFixture) throws {
            let erin = try fixture.token("erin")
            let (answer, result) = try fixture.startPlayback(token: erin, drmSystem: "clearkey")
            #expect(result.status == 200, "\(result.text)")
            let playback = try #require(answer)
            let url = try #require(playback["licenseUrl"]?.string)
            #expect(url.contains("/clearkey?"))
            let kids = try ["video", "audio"].map { component in
                JSONValue.string(Base64URL.encode(try Hex.decode(playback["keyIds"]?.object?[component]?.string ?? "")))
            }
            let licence = try fixture.request("POST", url, body: JSONWriter.write(.object(JSONObject([("kids", .array(kids))]))))
            #expect(licence.status == 200, "\(licence.text)")
            #expect(try JSONParser.parse(licence.body).object?["keys"]?.array?.count == 2)
            let id = try #require(playback["playbackId"]?.string)
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(id)", token: erin).status == 204)
        }

        /// The package allows one stream: a second playback is refused (429) until the first is
        /// released, then admitted at once.
        func releaseFreesTheStreamSlot(_ fixture: DeliveryFixture, alice: String) throws {
            let (first, firstResult) = try fixture.startPlayback(token: alice)
            #expect(firstResult.status == 200)
            let (second, secondResult) = try fixture.startPlayback(token: alice)
            #expect(second == nil)
            #expect(secondResult.status == 429)
            #expect(try JSONParser.parse(secondResult.body).object?["reason"]?.string == "concurrent_streams")
            let release = try #require(first?["releaseUrl"]?.string)
            #expect(release.hasPrefix(fixture.kas.address + "/media/v1/playback/"))
            #expect(try fixture.request("DELETE", release, token: alice).status == 204)
            let (third, thirdResult) = try fixture.startPlayback(token: alice)
            #expect(thirdResult.status == 200)
            #expect(third?["sessionId"]?.string != nil)
        }
    }
}
