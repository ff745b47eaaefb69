import Foundation
@testable import KASDomain
import KASTesting
import MediaDRMJSON
import Testing

/// A JW Platform app's delivery structs as JW's iOS DRM documentation lists them (our own code):
/// every member non-optional except the DRM systems, and every source has a `drm` object. They
/// decode real `GET /v2/media/{id}` answers of a real `kas serve` with Foundation's JSONDecoder
/// (docs/delivery.md "JW Platform's fields").
struct JWDeliveryAPI: Decodable {
    let title: String
    let description: String
    let kind: String
    let playlist: [Playlist]
    let feedInstanceID: String

    enum CodingKeys: String, CodingKey {
        case title, description, kind, playlist
        case feedInstanceID = "feed_instance_id"
    }

    struct Playlist: Decodable {
        let title: String
        let mediaid: String
        let link: String
        let image: String
        let images: [Image]
        let duration: Int
        let pubdate: Int
        let description: String
        let sources: [Source]
        let tracks: [Track]
    }

    struct Image: Decodable {
        let src: String
        let width: Int
        let type: String
    }

    struct Source: Decodable {
        let drm: DRM
        let file: String
        let type: String
    }

    struct DRM: Decodable {
        let fairplay: FairPlay?
        let widevine: LicenseServer?
        let playready: LicenseServer?
    }

    struct FairPlay: Decodable {
        let processSpcUrl: String
        let certificateUrl: String
    }

    struct LicenseServer: Decodable {
        let url: String
    }

    struct Track: Decodable {
        let file: String
        let kind: String
        let label: String?
    }
}

@Suite(.serialized) struct JWPlatformAnswerTests {
    static func describe(_ fixture: DeliveryFixture, _ id: String, token: String) throws -> JWDeliveryAPI {
        let result = try fixture.request("GET", "/v2/media/\(id)", token: token)
        #expect(result.status == 200, "\(result.text)")
        return try JSONDecoder().decode(JWDeliveryAPI.self, from: result.body)
    }

    /// An fps-v2 title: every field decodes; the views carry an empty `drm`; each answer has its
    /// own `feed_instance_id`; `link` is the viewer page; the description and the first
    /// catalogued date stay across re-adds, the description changing only with `--description`.
    @Test func fpsV2AnswerDecodesAndKeepsItsFieldsAcrossReAdds() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.stop() }
        let alice = try fixture.token("alice")
        let before = Int(Date().timeIntervalSince1970)

        let first = try Self.describe(fixture, fixture.assetID, token: alice)
        let second = try Self.describe(fixture, fixture.assetID, token: alice)
        #expect(first.feedInstanceID != second.feedInstanceID && !first.feedInstanceID.isEmpty)
        #expect(first.title == "Talk" && first.description == "" && first.kind == "Single Item")
        let item = try #require(first.playlist.first)
        #expect(first.playlist.count == 1)
        #expect(item.link == fixture.kas.address + "/player/#" + item.mediaid)
        #expect(item.description == "" && item.image == "" && item.images.isEmpty && item.tracks.isEmpty)
        #expect(item.duration == 4)
        #expect(item.pubdate <= before, "catalogued before the first answer")
        #expect(item.sources.filter { $0.drm.fairplay != nil }.count == 1)
        #expect(item.sources.contains { $0.drm.fairplay == nil && $0.drm.widevine == nil && $0.drm.playready == nil })
        // The media id names the same answer.
        #expect(try Self.describe(fixture, item.mediaid, token: alice).playlist.first?.pubdate == item.pubdate)

        // Added again in a later second: the first date stays; the description is the new one,
        // then kept by an add without --description.
        while Int(Date().timeIntervalSince1970) <= item.pubdate { Thread.sleep(forTimeInterval: 0.05) }
        let add = ["assets", "add", fixture.root + "/talk.tdf", "--path", "/talk.tdf", "--title", "Talk",
                   "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address]
        try DeliveryFixture.tool(add + ["--description", "A talk about \"open\" DRM.\nSecond line."])
        let described = try Self.describe(fixture, fixture.assetID, token: alice)
        #expect(described.description == "A talk about \"open\" DRM.\nSecond line.")
        #expect(described.playlist.first?.description == described.description)
        #expect(described.playlist.first?.pubdate == item.pubdate)
        #expect(described.playlist.first?.mediaid == item.mediaid)
        try DeliveryFixture.tool(add)
        let kept = try Self.describe(fixture, fixture.assetID, token: alice)
        #expect(kept.description == described.description && kept.playlist.first?.pubdate == item.pubdate)

        // Too long a description is refused before anything is written.
        let long = try KASToolHarness.run(add + ["--description", String(repeating: "x", count: CatalogEntry.maxDescriptionBytes + 1)])
        #expect(long.status == 64, "\(long.stderr)")
        #expect(try Self.describe(fixture, fixture.assetID, token: alice).description == described.description)
    }

    /// A tdf-hls and a cmaf title with a WebVTT rendition: one `captions` track labelled with
    /// the rendition's NAME, its `file` the rendition's playlist signed for the title's prefix
    /// (refused by nginx without the signature); its segments, fetched with the same query, are
    /// WebVTT. `link` is under the configured `delivery.titlePageBaseURL`.
    @Test(arguments: ["tdf-hls", "cmaf"]) func subtitleRenditionsAreSignedCaptionTracks(profile: String) throws {
        let fixture = try DeliveryFixture(cmaf: profile == "cmaf", tdfHLS: profile == "tdf-hls", subtitles: true,
                                          serveEnvironment: ["KAS_TITLE_PAGE_BASE_URL": "https://www.example.com/watch/"])
        defer { fixture.stop() }
        let answer = try Self.describe(fixture, fixture.assetID, token: try fixture.token("alice"))
        let item = try #require(answer.playlist.first)
        #expect(item.link == "https://www.example.com/watch/" + item.mediaid)
        #expect(item.images.isEmpty && item.image == "")
        #expect(item.tracks.count == 1, "\(item.tracks)")
        let track = try #require(item.tracks.first)
        #expect(track.kind == "captions")
        let label = try #require(track.label)
        let master = try String(contentsOfFile: fixture.root + "/talk/master.m3u8", encoding: .utf8)
        #expect(master.contains("TYPE=SUBTITLES") && master.contains("NAME=\"\(label)\""), "\(master)")

        let parts = track.file.split(separator: "?", maxSplits: 1).map(String.init)
        #expect(parts.count == 2 && parts[1].contains("md5="), "signed: \(track.file.prefix(60))")
        let playlistURL = try #require(parts.first)
        #expect(playlistURL.hasPrefix(fixture.nginx.url + "/talk/") && playlistURL.hasSuffix(".m3u8"))
        #expect(try fixture.request("GET", playlistURL).status == 403, "the origin refuses it unsigned")
        let playlist = try fixture.request("GET", track.file)
        #expect(playlist.status == 200)
        #expect(playlist.text.hasPrefix("#EXTM3U"))
        let segments = playlist.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(!segments.isEmpty)
        let directory = String(playlistURL[..<(playlistURL.lastIndex(of: "/") ?? playlistURL.endIndex)])
        for segment in segments {
            let fetched = try fixture.request("GET", directory + "/" + segment + "?" + parts[1])
            #expect(fetched.status == 200, "\(segment)")
            #expect(fetched.text.hasPrefix("WEBVTT"), "\(segment): \(fetched.text.prefix(40))")
        }
    }

    /// Poster frames from the clear source (`kas assets add --poster-from`): three JPEGs of
    /// their widths, served by nginx only with their signature (an fps-v2 file's beside it at
    /// `/talk.tdf.posters/`, a directory title's in its directory); `image` is the 640 one, and
    /// adding again without the option keeps them.
    @Test(arguments: ["fps-v2", "cmaf"]) func posterFramesAreSignedJPEGsOfTheirWidths(profile: String) throws {
        let fixture = try DeliveryFixture(cmaf: profile == "cmaf")
        defer { fixture.stop() }
        let alice = try fixture.token("alice")
        let (package, path) = profile == "cmaf" ? (fixture.root + "/talk/", "/talk/") : (fixture.root + "/talk.tdf", "/talk.tdf")
        let add = ["assets", "add", package, "--path", path, "--title", "Talk",
                   "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address]
        try DeliveryFixture.tool(add + ["--poster-from", try ProjectTools.clip()])
        for round in 0..<2 {
            let item = try #require(try Self.describe(fixture, fixture.assetID, token: alice).playlist.first)
            #expect(item.images.map(\.width) == [320, 640, 1280], "round \(round)")
            #expect(item.images.allSatisfy { $0.type == "image/jpeg" })
            #expect(item.image == item.images.first { $0.width == 640 }?.src)
            for image in item.images {
                let unsigned = String(image.src.prefix { $0 != "?" })
                let directory = profile == "cmaf" ? "/talk/" : "/talk.tdf.posters/"
                #expect(unsigned == fixture.nginx.url + directory + "poster-\(image.width).jpg")
                #expect(try fixture.request("GET", unsigned).status == 403, "the origin refuses it unsigned")
                let fetched = try fixture.request("GET", image.src)
                #expect(fetched.status == 200)
                let file = fixture.work + "/fetched-\(image.width).jpg"
                try fetched.body.write(to: URL(fileURLWithPath: file))
                let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                "stream=codec_name,width", "-of", "csv=p=0", file])
                #expect(String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                        == "mjpeg,\(image.width)")
            }
            // Added again without --poster-from: the posters stay.
            if round == 0 { try DeliveryFixture.tool(add) }
        }
        // A source ffmpeg cannot read: refused with ffmpeg's words, the entry's posters untouched.
        let refused = try KASToolHarness.run(add + ["--poster-from", fixture.policyFile])
        #expect(refused.status == 1 && refused.stderr.contains("ffmpeg failed to make the poster frames"), "\(refused.stderr)")
        #expect(try Self.describe(fixture, fixture.assetID, token: alice).playlist.first?.images.count == 3)
        // A package given by URL: nowhere to write them.
        let remote = try KASToolHarness.run(["assets", "add", fixture.nginx.url + path, "--path", path, "--poster-from", try ProjectTools.clip(),
                                             "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address])
        #expect(remote.status == 64 && remote.stderr.contains("--poster-from writes beside a local package"), "\(remote.stderr)")
    }
}
