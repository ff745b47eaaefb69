import Foundation
import MediaDRMEncoding
import Testing
@testable import Client

/// The playback answer, the delivery description and the `player play` source rule
/// (docs/delivery.md), read with the project's strict JSON parser into typed errors.
@Suite struct DeliveryParsingTests {
    static let grantJSON = """
        {"playbackId": "pb_1-Ab", "assetId": "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11", "title": "Talk", "drmSystem": "tdf",
         "mediaUrl": "https://origin.example/talk/master.m3u8?md5=abc&expires=1796155200",
         "mediaUrlExpiresAt": "2026-12-01T20:00:00Z",
         "licenseUrl": "https://kas.example", "sessionId": "secret-session-id-123",
         "heartbeatUrl": "https://kas.example/media/v1/session/secret-session-id-123/heartbeat",
         "releaseUrl": "https://kas.example/media/v1/playback/pb_1-Ab", "expiresAt": "2026-12-01T21:00:00.5Z",
         "futureMember": {"ignored": true}}
        """

    @Test func grantReadsEveryContractMember() throws {
        let grant = try PlaybackGrant(json: Data(Self.grantJSON.utf8))
        #expect(grant.playbackID == "pb_1-Ab")
        #expect(grant.assetID == "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11")
        #expect(grant.drmSystem == .tdf)
        #expect(grant.mediaURL == "https://origin.example/talk/master.m3u8?md5=abc&expires=1796155200")
        #expect(grant.mediaURLExpiresAt == 1_796_155_200)
        #expect(grant.expiresAt == 1_796_158_800.5)
        #expect(grant.certificateURL == nil)
        #expect(grant.licenseURL == "https://kas.example")
        #expect(grant.releaseURL == "https://kas.example/media/v1/playback/pb_1-Ab")
        #expect(grant.sessionID == "secret-session-id-123")
    }

    @Test func grantNeverShowsItsSessionOrSignedQuery() throws {
        let grant = try PlaybackGrant(json: Data(Self.grantJSON.utf8))
        for text in ["\(grant)", String(reflecting: grant)] {
            #expect(!text.contains("secret-session-id"))
            #expect(!text.contains("md5"))
        }
    }

    @Test(arguments: [
        ("mediaUrl", #""mediaUrl": "https://origin.example/talk/master.m3u8?md5=abc&expires=1796155200","#, ""),
        ("mediaUrl", #""mediaUrl": "https://origin.example/talk/master.m3u8?md5=abc&expires=1796155200","#, #""mediaUrl": "file:///etc/passwd","#),
        ("mediaUrl", #""mediaUrl": "https://origin.example/talk/master.m3u8?md5=abc&expires=1796155200","#, #""mediaUrl": "http://origin.example/a","#),
        ("mediaUrlExpiresAt", #""mediaUrlExpiresAt": "2026-12-01T20:00:00Z","#, #""mediaUrlExpiresAt": "2026-12-01T20:00:00+01:00","#),
        ("mediaUrlExpiresAt", #""mediaUrlExpiresAt": "2026-12-01T20:00:00Z","#, #""mediaUrlExpiresAt": 1796155200,"#),
        ("drmSystem", #""drmSystem": "tdf","#, #""drmSystem": "widevine","#),
        ("playbackId", #""playbackId": "pb_1-Ab","#, #""playbackId": "../../admin","#),
        ("releaseUrl", #""releaseUrl": "https://kas.example/media/v1/playback/pb_1-Ab","#, #""releaseUrl": ["x"],"#),
    ])
    func grantRefusesABadMemberNamingIt(field: String, original: String, replacement: String) {
        let body = Self.grantJSON.replacingOccurrences(of: original, with: replacement)
        #expect(body != Self.grantJSON)
        do {
            _ = try PlaybackGrant(json: Data(body.utf8))
            Issue.record("a playback answer with a bad \(field) was accepted")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.reason.contains(field), "\(error.reason)")
        }
    }

    @Test func grantRefusesNonJSONAndNonObjects() {
        for body in ["", "[]", "{\"playbackId\":", "{} trailing", String(repeating: "[", count: 10_000)] {
            #expect(throws: PlaybackError(.malformed, "")) { try PlaybackGrant(json: Data(body.utf8)) }
        }
    }

    @Test func renewalAnswerIsReadStrictly() throws {
        let renewal = try MediaURLRenewal(json: Data(#"{"mediaUrl":"https://o.example/t.tdf?md5=x&expires=2","mediaUrlExpiresAt":"1970-01-01T00:00:02Z"}"#.utf8))
        #expect(renewal == MediaURLRenewal(mediaURL: "https://o.example/t.tdf?md5=x&expires=2", expiresAt: 2))
        #expect(throws: PlaybackError(.malformed, "")) { try MediaURLRenewal(json: Data(#"{"mediaUrl":"https://o.example/t"}"#.utf8)) }
    }

    @Test func timestampsAreRFC3339UTCOnly() {
        #expect(RFC3339Timestamp.seconds("1970-01-01T00:00:00Z") == 0)
        #expect(RFC3339Timestamp.seconds("2000-02-29T12:00:00Z") == 951_825_600)
        #expect(RFC3339Timestamp.seconds("2026-12-01T20:00:00.250Z") == 1_796_155_200.25)
        for bad in ["2026-12-01T20:00:00", "2026-12-01t20:00:00Z", "2026-12-01T20:00:00+00:00", "2026-02-29T00:00:00Z",
                    "2026-13-01T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T20:00:00.Z", "26-12-01T20:00:00Z", ""] {
            #expect(RFC3339Timestamp.seconds(bad) == nil, "\(bad)")
        }
    }

    // MARK: The delivery description

    static let sources = [
        #"{"file": "https://o.example/fp/master.m3u8", "type": "application/vnd.apple.mpegurl", "drm": {"fairplay": {"processSpcUrl": "https://kas.example/fp/spc", "certificateUrl": "https://kas.example/media/v1/certificate"}}}"#,
        #"{"file": "https://o.example/talk/master.m3u8?md5=a&expires=1", "type": "application/vnd.apple.mpegurl", "drm": {"com.arkavo.tdf": {"kasUrl": "https://kas.example", "playbackUrl": "https://kas.example/media/v1/playback"}}}"#,
        #"{"file": "https://o.example/ck/master.m3u8", "type": "application/vnd.apple.mpegurl", "drm": {"org.w3.clearkey": {"licenseUrl": "https://kas.example/ck"}}}"#,
    ]

    static func description(_ sources: [String]) -> Data {
        Data("""
            {"title": "Talk", "kind": "Single Item", "playlist": [{"mediaid": "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11", "title": "Talk",
             "duration": 4, "sources": [\(sources.joined(separator: ","))], "tracks": []}]}
            """.utf8)
    }

    static func permutations(_ items: [String]) -> [[String]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[String]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    @Test func descriptionPicksTheSourceByDRMSystemWhateverTheOrder() throws {
        let orders = Self.permutations(Self.sources)
        #expect(orders.count == 6)
        for order in orders {
            let description = try DeliveryDescription(json: Self.description(order))
            #expect(description.mediaID == "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11")
            #expect(description.duration == 4)
            let tdf = try description.source(for: .tdf)
            #expect(tdf.file == "https://o.example/talk/master.m3u8?md5=a&expires=1")
            #expect(tdf.drm[.tdf]?["playbackUrl"] == "https://kas.example/media/v1/playback")
            #expect(try description.source(for: .fairplay).drm[.fairplay]?["processSpcUrl"] == "https://kas.example/fp/spc")
            #expect(try description.source(for: .clearkey).file == "https://o.example/ck/master.m3u8")
        }
    }

    /// The KAS's answer with JW's every member (description, feed_instance_id, link, pubdate,
    /// images, captions tracks) and the standard players' forms, whose `drm` is empty: each
    /// system still has its one source.
    @Test func descriptionWithJWsMembersAndEmptyDRMViewsReads() throws {
        let view = #"{"file": "https://kas.example/media/v1/playback", "type": "application/dash+xml", "drm": {}, "playback": {"url": "https://kas.example/media/v1/playback", "drmSystems": ["clearkey"], "manifestTypes": ["dash"], "urlMember": "dashUrl"}}"#
        let json = Data("""
            {"title": "Talk", "description": "", "kind": "Single Item", "feed_instance_id": "q3Z0V9pX2m8bKx1cT4yQfw",
             "playlist": [{"mediaid": "Ab12cd34", "title": "Talk", "description": "", "link": "https://kas.example/player/#Ab12cd34",
             "image": "", "images": [], "duration": 4, "pubdate": 1796083200, "sources": [\((Self.sources + [view]).joined(separator: ","))],
             "tracks": [{"file": "https://o.example/talk/subtitles-en.m3u8?md5=a&expires=1", "kind": "captions", "label": "English"}]}]}
            """.utf8)
        let description = try DeliveryDescription(json: json)
        #expect(description.mediaID == "Ab12cd34")
        #expect(description.sources.count == 4)
        #expect(try description.source(for: .clearkey).file == "https://o.example/ck/master.m3u8")
        #expect(try description.source(for: .fairplay).drm[.fairplay]?["processSpcUrl"] == "https://kas.example/fp/spc")
    }

    @Test func descriptionWithoutOrWithTwoSourcesForASystemIsRefused() throws {
        let none = try DeliveryDescription(json: Self.description([Self.sources[0], Self.sources[2]]))
        #expect(throws: PlaybackError(.denied, "")) { try none.source(for: .tdf) }
        let two = try DeliveryDescription(json: Self.description([Self.sources[1], Self.sources[0], Self.sources[1]]))
        #expect(throws: PlaybackError(.malformed, "")) { try two.source(for: .tdf) }
    }

    @Test func descriptionRefusesAnotherShape() {
        for body in [#"{"playlist": []}"#, #"{"playlist": [{"mediaid": "m", "sources": [1]}]}"#,
                     #"{"playlist": [{"mediaid": "m", "sources": [{"file": "f", "type": "t", "drm": {"fairplay": "x"}}]}]}"#,
                     #"{"playlist": [{"sources": []}]}"#, #"{"playlist": {"mediaid": "m"}}"#, "null"] {
            #expect(throws: PlaybackError(.malformed, "")) { try DeliveryDescription(json: Data(body.utf8)) }
        }
    }

    // MARK: The player's rule

    @Test func theSourceRule() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("master.m3u8"))
        let cases: [(String, PlaybackTarget)] = [
            ("https://kas.example/v2/media/5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11?token=eyJ",
             .deliveryDescription("https://kas.example/v2/media/5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11?token=eyJ")),
            ("HTTP://127.0.0.1:8080/v2/media/a", .deliveryDescription("HTTP://127.0.0.1:8080/v2/media/a")),
            ("https://o.example/x/v2/media/a", .source(.packageURL("https://o.example/x/v2/media/a"))),
            ("https://o.example/v2/mediax/a", .source(.packageURL("https://o.example/v2/mediax/a"))),
            ("https://o.example/talk.tdf?md5=a&expires=1", .source(.packageURL("https://o.example/talk.tdf?md5=a&expires=1"))),
            ("https://o.example/talk/master.m3u8?md5=a&expires=1",
             .source(.tdfHLSMasterURL("https://o.example/talk/master.m3u8?md5=a&expires=1"))),
            (directory.path, .source(.directory(directory.path))),
        ]
        for (argument, expected) in cases {
            #expect(try PlaybackTarget(argument: argument, assetID: nil) == expected, "\(argument)")
        }
        #expect(try PlaybackTarget(argument: nil, assetID: "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11")
                == .asset("5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"))
        #expect(try PlaybackTarget(argument: nil, assetID: "Talk2026") == .asset("Talk2026"), "a media id")
    }

    @Test func theSourceRuleRefusesAmbiguity() {
        for (argument, asset) in [(nil, "not-a-uuid"), ("https://o.example/t.tdf", "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"),
                                  (nil, nil), (nil, "5F0C3A52-7A7E-4C1E-9D3B-2B1F0E9A8C11"), (nil, "Talk202"), (nil, "Talk-026")]
                as [(String?, String?)] {
            #expect(throws: PlaybackError(.invalidArgument, "")) { try PlaybackTarget(argument: argument, assetID: asset) }
        }
        #expect(throws: PlaybackError(.invalidSource, "")) { try PlaybackTarget(argument: "ftp://o.example/v2/media/a", assetID: nil) }
    }

    @Test func siblingsKeepTheSignedQuery() {
        #expect(HTTPResourceLoader.sibling("video.m3u8", of: "https://o.example/talk/master.m3u8?md5=a_b&expires=9#x")
                == "https://o.example/talk/video.m3u8?md5=a_b&expires=9")
        #expect(HTTPResourceLoader.sibling("v1.tdf", of: "http://127.0.0.1:1/s/master.m3u8") == "http://127.0.0.1:1/s/v1.tdf")
    }

    @Test func aMediaURLIsRenewedAQuarterOfItsLifeAndAtMostAMinuteBeforeExpiry() {
        #expect(MediaURLLease.renewTime(expiresAt: 1000, now: 400) == 940)
        #expect(MediaURLLease.renewTime(expiresAt: 1000, now: 980) == 995)
        // Expired on arrival (clocks apart): renewed only on the origin's 403.
        #expect(MediaURLLease.renewTime(expiresAt: 1000, now: 1100) == .infinity)
    }
}
