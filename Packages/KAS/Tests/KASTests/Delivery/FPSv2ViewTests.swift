import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// The HLS and DASH views of an fps-v2 file (docs/formats.md "Views of fps-v2") behind a real
/// `kas serve` and nginx (`DeliveryFixture()`, the packager's `talk.tdf`): read by PyPI `m3u8` and
/// `mpegdash`, their byte ranges checked against the ZIP directory as Python's `zipfile` and the
/// local headers give it (`Tools/python/fps_v2_views.py`), ffprobe listing each view's streams,
/// and the bytes each view addresses, fetched through its signed URIs and decrypted by ffmpeg with
/// the keys of the playback's ClearKey licence, carrying the source's packets. One test per
/// server pair, its steps in order.
extension DeliveryTests {
    @Suite(.serialized) struct FPSv2ViewTests {
        @Test func viewsOfAnFPSv2File() throws {
            let fixture = try DeliveryFixture()
            defer { fixture.stop() }
            let alice = try fixture.token("alice")
            let started = try fixture.post("/media/v1/playback", token: alice, json: [
                ("assetId", .string(fixture.assetID)), ("drmSystem", .string("clearkey")),
                ("manifestTypes", .array([.string("dash"), .string("hls")])),
            ])
            #expect(started.status == 200, "\(started.text)")
            let playback = try #require(try JSONParser.parse(started.body).object)
            let id = try #require(playback["playbackId"]?.string)
            let dash = try #require(playback["dashUrl"]?.string), hls = try #require(playback["hlsUrl"]?.string)
            let mediaURL = try #require(playback["mediaUrl"]?.string)
            #expect(dash.hasPrefix(fixture.kas.address + "/media/v1/playback/\(id)/manifest.mpd?expires="))
            #expect(hls.hasPrefix(fixture.kas.address + "/media/v1/playback/\(id)/master.m3u8?expires="))
            // The views expire with the media URL.
            #expect(Self.expires(dash) == Self.expires(mediaURL) && Self.expires(hls) == Self.expires(mediaURL))

            let report = try views(fixture, dash: dash, hls: hls)
            // Every URI inside is the playback's signed media URL; every licence URL a ClearKey
            // licence URL of this playback (signed when the MPD was served), which answers.
            #expect(report["packageUrls"]?.array == [.string(mediaURL)], "\(report)")
            let licences = report["licenseUrls"]?.array?.compactMap(\.string) ?? []
            #expect(licences.count == 4)
            #expect(licences.allSatisfy { $0.hasPrefix(fixture.kas.address + "/media/v1/playback/\(id)/clearkey?expires=") })
            let kid = Base64URL.encode(try Hex.decode(try #require(playback["keyIds"]?.object?["video"]?.string)))
            let asked = JSONWriter.write(.object(JSONObject([("kids", .array([.string(kid)])), ("type", .string("temporary"))])))
            let answered = try fixture.request("POST", try #require(licences.first), body: asked, headers: ["Content-Type: application/json"])
            #expect(answered.status == 200, "\(answered.text)")

            // Debian's ffprobe 5.1 through each view's signed URLs. Its HLS demuxer opens only
            // segment URLs ending in a media extension, which `.tdf` is not (docs/web.md): the
            // HLS view is probed with those checks off.
            for (view, options) in [(dash, []), (hls, Self.anySegmentExtension)] {
                let streams = try Self.probedStreams(view, options: options)
                #expect(Set(streams) == ["audio", "video"], "\(view.prefix(80)): \(streams)")
            }
            try decryptsToTheSource(fixture, playback: playback, report: report)
            try expiryAndRenewal(fixture, alice: alice, playback: playback)
            try fairPlayAndRefusals(fixture)
            try noViewWithoutAdmission(fixture)
            #expect(!fixture.writtenLogs.contains("sig="))
        }

        static func expires(_ url: String) -> String? {
            URLComponents(string: url)?.queryItems?.first { $0.name == "expires" }?.value
        }

        /// `fps_v2_views.py`: the views parsed, their ranges tiling the archive, their bytes fetched.
        func views(_ fixture: DeliveryFixture, dash: String, hls: String) throws -> JSONObject {
            let out = fixture.work + "/views-\(UUID().uuidString.prefix(6))"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let checked = try runProcess(try ProjectPython.interpreter(),
                                         [ProjectPython.script("fps_v2_views.py"), dash, hls, fixture.root + "/talk.tdf", out])
            try #require(checked.status == 0, "\(checked.stderr)")
            return try #require(try JSONParser.parse(checked.stdout).object)
        }

        /// ffmpeg's HLS options that let a segment URL end in `.tdf`.
        static let anySegmentExtension = ["-allowed_extensions", "ALL", "-allowed_segment_extensions", "ALL", "-extension_picky", "0"]

        /// ffprobe's stream types of a view, read through its signed URIs (a stream listed under
        /// its program is listed again).
        static func probedStreams(_ url: String, options: [String] = []) throws -> [String] {
            let probed = try runProcess("/usr/bin/ffprobe", ["-v", "error"] + options
                                        + ["-show_entries", "stream=codec_type", "-of", "csv=p=0", url])
            #expect(probed.status == 0, "\(probed.stderr.prefix(1500))")
            return String(decoding: probed.stdout, as: UTF8.self).split(separator: "\n")
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", \r")) }.filter { !$0.isEmpty }.sorted()
        }

        /// The keys of the playback's ClearKey licence decrypt what each view addresses (init then
        /// segments) to the source's packets (ffmpeg's `streamhash` of the clip's stream).
        func decryptsToTheSource(_ fixture: DeliveryFixture, playback: JSONObject, report: JSONObject) throws {
            let kids = try #require(playback["keyIds"]?.object)
            let licence = try #require(playback["licenseUrl"]?.string)
            let components = try #require(report["components"]?.object)
            for (component, map) in [("video", "0:v"), ("audio", "0:a")] {
                let kid = Base64URL.encode(try Hex.decode(try #require(kids[component]?.string)))
                let body = JSONWriter.write(.object(JSONObject([("kids", .array([.string(kid)])), ("type", .string("temporary"))])))
                let answer = try fixture.request("POST", licence, body: body, headers: ["Content-Type: application/json"])
                #expect(answer.status == 200, "\(answer.text)")
                let k = try #require(try JSONParser.parse(answer.body).object?["keys"]?.array?.first?.object?["k"]?.string)
                let key = Hex.encode(try Base64URL.decode(k))
                let files = try #require(components[component]?.object)
                let source = try Self.streamHash(try ProjectTools.clip(), map: map, key: nil)
                for view in ["hls", "dash"] {
                    let file = try #require(files[view]?.string)
                    #expect(try Self.streamHash(file, map: "0", key: key) == source, "\(view) \(component)")
                    // Without the key the bytes are not the source's: the view addresses encrypted media.
                    #expect(try Self.streamHash(file, map: "0", key: nil) != source, "\(view) \(component)")
                }
            }
        }

        /// `-c copy -f streamhash` of one stream, its index dropped so files of other track orders compare.
        static func streamHash(_ path: String, map: String, key: String?) throws -> String {
            // Debian's ffmpeg 5.1 takes each packet's encryption entry from the last fragment it
            // parsed (docs/formats.md): `+ignidx` parses fragments as it reaches them.
            let decryption = key.map { ["-fflags", "+ignidx", "-decryption_key", $0] } ?? []
            let r = try runProcess("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error"] + decryption
                                   + ["-i", path, "-map", map, "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"])
            #expect(r.status == 0, "\(r.stderr.prefix(1500))")
            return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
                .map { $0.split(separator: ",", maxSplits: 1).dropFirst().joined() }.joined(separator: "\n")
        }

        /// A view URL past its expiry is refused with its reason; the media URL's renewal answers
        /// fresh view URLs, whose URIs are the renewed media URL.
        func expiryAndRenewal(_ fixture: DeliveryFixture, alice: String, playback: JSONObject) throws {
            let id = try #require(playback["playbackId"]?.string)
            let key = try Data(contentsOf: URL(fileURLWithPath: fixture.dataDirectory + "/license-url.key"))
            let past = Int64(Date().timeIntervalSince1970) - 5
            let query = LicenseURLSigner(key: SecretKey(data: key)).query(.manifests, playbackID: id, expires: past)
            for name in ["manifest.mpd", "master.m3u8", "video.m3u8"] {
                let expired = try fixture.request("GET", fixture.kas.address + "/media/v1/playback/\(id)/\(name)?" + query)
                #expect(expired.status == 403 && Self.reason(expired) == "license_url_expired", "\(name): \(expired.text)")
            }
            let renewed = try fixture.post("/media/v1/playback/\(id)/media-url", token: alice, json: [])
            #expect(renewed.status == 200, "\(renewed.text)")
            let answer = try #require(try JSONParser.parse(renewed.body).object)
            let dash = try #require(answer["dashUrl"]?.string), hls = try #require(answer["hlsUrl"]?.string)
            let mediaURL = try #require(answer["mediaUrl"]?.string)
            #expect(Self.expires(dash) == Self.expires(mediaURL) && Self.expires(hls) == Self.expires(mediaURL))
            let report = try views(fixture, dash: dash, hls: hls)
            #expect(report["packageUrls"]?.array == [.string(mediaURL)])
        }

        static func reason(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["reason"]?.string }

        /// FairPlay gets the HLS view only (its MPD is not served to it); `tdf` gets none.
        func fairPlayAndRefusals(_ fixture: DeliveryFixture) throws {
            let bob = try fixture.token("bob")
            let dash = try fixture.post("/media/v1/playback", token: bob, json: [
                ("assetId", .string(fixture.assetID)), ("drmSystem", .string("fairplay")), ("manifestTypes", .array([.string("dash")])),
            ])
            #expect(dash.status == 400, "\(dash.text)")
            let (fairPlay, result) = try fixture.startPlayback(token: bob, drmSystem: "fairplay")
            let playback = try #require(fairPlay, "\(result.text)")
            let hls = try #require(playback["hlsUrl"]?.string)
            #expect(playback["dashUrl"] == nil)
            let master = try fixture.request("GET", hls)
            #expect(master.status == 200 && master.header("Content-Type") == "application/vnd.apple.mpegurl")
            let mpd = try fixture.request("GET", hls.replacingOccurrences(of: "master.m3u8", with: "manifest.mpd"))
            #expect(mpd.status == 404, "\(mpd.text)")
            #expect(try fixture.request("DELETE", "/media/v1/playback/\(try #require(playback["playbackId"]?.string))", token: bob).status == 204)
            let (tdf, _) = try fixture.startPlayback(token: bob, drmSystem: "tdf")
            #expect(tdf?["hlsUrl"] == nil && tdf?["dashUrl"] == nil && tdf?["mediaUrl"] != nil)
        }

        /// The same package rewritten with deflated entries fails admission (§4, stored entries):
        /// the catalog refuses it, so it never gets a view.
        func noViewWithoutAdmission(_ fixture: DeliveryFixture) throws {
            let deflated = fixture.root + "/deflated.tdf"
            let script = """
                import sys, zipfile
                with zipfile.ZipFile(sys.argv[1]) as source, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as out:
                    for info in source.infolist():
                        out.writestr(info.filename, source.read(info.filename))
                """
            let rewritten = try runProcess(try ProjectPython.interpreter(), ["-c", script, fixture.root + "/talk.tdf", deflated])
            try #require(rewritten.status == 0, "\(rewritten.stderr)")
            let added = try KASToolHarness.run(["assets", "add", deflated, "--path", "/deflated.tdf", "--data-dir", fixture.dataDirectory,
                                                "--public-url", fixture.kas.address])
            #expect(added.status != 0 && added.stderr.contains("is not an fps-v2 package"), "\(added.stderr)")
            let listed = try DeliveryFixture.tool(["assets", "list", "--data-dir", fixture.dataDirectory]).output
            #expect(!listed.contains("/deflated.tdf"), "\(listed)")
        }
    }
}
