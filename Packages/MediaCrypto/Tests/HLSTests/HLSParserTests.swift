import Foundation
import Testing
@testable import MediaDRMHLS

/// Lenient (general HLS) reading: the RFC 8216 §8 example playlists with their expected values,
/// and the lenient line grammar.
@Suite struct HLSParserTests {
    private func media(_ text: String) throws -> HLSMediaPlaylist {
        try #require(try HLSParser.parse(text).media)
    }

    private func master(_ text: String) throws -> HLSMasterPlaylist {
        try #require(try HLSParser.parse(text).master)
    }

    // MARK: RFC 8216 §8 (the RFC's line continuations joined)

    @Test func rfc8_1SimpleMediaPlaylist() throws {
        let p = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-VERSION:3
            #EXTINF:9.009,
            http://media.example.com/first.ts
            #EXTINF:9.009,
            http://media.example.com/second.ts
            #EXTINF:3.003,
            http://media.example.com/third.ts
            #EXT-X-ENDLIST
            """)
        #expect(p.version == 3)
        #expect(p.targetDuration == 10)
        #expect(p.segments.map(\.duration) == [9.009, 9.009, 3.003])
        #expect(p.segments.map(\.uri) == ["http://media.example.com/first.ts", "http://media.example.com/second.ts",
                                          "http://media.example.com/third.ts"])
        #expect(p.segments.allSatisfy { $0.title.isEmpty })
        #expect(p.endList)
        #expect(p.mediaSequence == nil)
        #expect(abs(p.duration - 21.021) < 1e-9)
    }

    @Test func rfc8_2LiveMediaPlaylist() throws {
        let p = try media("""
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:8
            #EXT-X-MEDIA-SEQUENCE:2680

            #EXTINF:7.975,
            https://priv.example.com/fileSequence2680.ts
            #EXTINF:7.941,
            https://priv.example.com/fileSequence2681.ts
            #EXTINF:7.975,
            https://priv.example.com/fileSequence2682.ts
            """)
        #expect(p.mediaSequence == 2680)
        #expect(p.targetDuration == 8)
        #expect(p.segments.map(\.duration) == [7.975, 7.941, 7.975])
        #expect(p.segments.last?.uri == "https://priv.example.com/fileSequence2682.ts")
        #expect(!p.endList)
    }

    @Test func rfc8_3EncryptedMediaSegments() throws {
        let p = try media("""
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-MEDIA-SEQUENCE:7794
            #EXT-X-TARGETDURATION:15

            #EXT-X-KEY:METHOD=AES-128,URI="https://priv.example.com/key.php?r=52"

            #EXTINF:2.833,
            http://media.example.com/fileSequence52-A.ts
            #EXTINF:15.0,
            http://media.example.com/fileSequence52-B.ts
            #EXTINF:13.333,
            http://media.example.com/fileSequence52-C.ts

            #EXT-X-KEY:METHOD=AES-128,URI="https://priv.example.com/key.php?r=53"

            #EXTINF:15.0,
            http://media.example.com/fileSequence53-A.ts
            """)
        #expect(p.mediaSequence == 7794)
        #expect(p.targetDuration == 15)
        #expect(p.segments.count == 4)
        #expect(p.segments.map(\.duration) == [2.833, 15.0, 13.333, 15.0])
        let k52 = HLSKey(method: .aes128, uri: "https://priv.example.com/key.php?r=52")
        let k53 = HLSKey(method: .aes128, uri: "https://priv.example.com/key.php?r=53")
        #expect(p.segments[0].keys == [k52])
        #expect(p.segments[1].keys.isEmpty)
        #expect(p.segments[3].keys == [k53])
        #expect(p.effectiveKeys(forSegment: 2) == [k52])
        #expect(p.effectiveKeys(forSegment: 3) == [k53])
    }

    @Test func rfc8_4MasterPlaylist() throws {
        let p = try master("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000
            http://example.com/low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,AVERAGE-BANDWIDTH=2000000
            http://example.com/mid.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=7680000,AVERAGE-BANDWIDTH=6000000
            http://example.com/hi.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS="mp4a.40.5"
            http://example.com/audio-only.m3u8
            """)
        #expect(p.variants.map(\.bandwidth) == [1_280_000, 2_560_000, 7_680_000, 65_000])
        #expect(p.variants.map(\.averageBandwidth) == [1_000_000, 2_000_000, 6_000_000, nil])
        #expect(p.variants[3].codecs == ["mp4a.40.5"])
        #expect(p.variants[3].uri == "http://example.com/audio-only.m3u8")
        #expect(p.version == nil)
    }

    @Test func rfc8_5MasterWithIFrames() throws {
        let p = try master("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1280000
            low/audio-video.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="low/iframe.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2560000
            mid/audio-video.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=150000,URI="mid/iframe.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=7680000
            hi/audio-video.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=550000,URI="hi/iframe.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS="mp4a.40.5"
            audio-only.m3u8
            """)
        #expect(p.variants.map(\.uri) == ["low/audio-video.m3u8", "mid/audio-video.m3u8", "hi/audio-video.m3u8", "audio-only.m3u8"])
        #expect(p.iFrameVariants.map(\.bandwidth) == [86_000, 150_000, 550_000])
        #expect(p.iFrameVariants.map(\.uri) == ["low/iframe.m3u8", "mid/iframe.m3u8", "hi/iframe.m3u8"])
    }

    @Test func rfc8_6MasterWithAlternativeAudio() throws {
        let p = try master("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",DEFAULT=YES,AUTOSELECT=YES,LANGUAGE="en",URI="main/english-audio.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",DEFAULT=NO,AUTOSELECT=YES,LANGUAGE="de",URI="main/german-audio.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Commentary",DEFAULT=NO,AUTOSELECT=NO,LANGUAGE="en",URI="commentary/audio-only.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="...",AUDIO="aac"
            low/video-only.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,CODECS="...",AUDIO="aac"
            mid/video-only.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=7680000,CODECS="...",AUDIO="aac"
            hi/video-only.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS="mp4a.40.5",AUDIO="aac"
            main/english-audio.m3u8
            """)
        #expect(p.renditions.count == 3)
        #expect(p.renditions.map(\.name) == ["English", "Deutsch", "Commentary"])
        #expect(p.renditions.map(\.isDefault) == [true, false, false])
        #expect(p.renditions.map(\.autoselect) == [true, true, false])
        #expect(p.renditions.map(\.language) == ["en", "de", "en"])
        #expect(p.renditions.allSatisfy { $0.type == .audio && $0.groupID == "aac" })
        #expect(p.variants.count == 4)
        #expect(p.variants.allSatisfy { $0.audio == "aac" })
        #expect(p.variants[0].codecs == ["..."])
    }

    @Test func rfc8_7MasterWithAlternativeVideo() throws {
        var text = "#EXTM3U\n"
        for tier in ["low", "mid", "hi"] {
            text += """
                #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="\(tier)",NAME="Main",AUTOSELECT=YES,DEFAULT=YES,URI="\(tier)/main/audio-video.m3u8"
                #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="\(tier)",NAME="Centerfield",DEFAULT=NO,URI="\(tier)/centerfield/audio-video.m3u8"
                #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="\(tier)",NAME="Dugout",DEFAULT=NO,URI="\(tier)/dugout/audio-video.m3u8"

                #EXT-X-STREAM-INF:BANDWIDTH=\(["low": 1280000, "mid": 2560000, "hi": 7680000][tier] ?? 0),CODECS="...",VIDEO="\(tier)"
                \(tier)/main/audio-video.m3u8

                """
        }
        text += "#EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS=\"mp4a.40.5\"\nmain/audio-only.m3u8"
        let p = try master(text)
        #expect(p.renditions.count == 9)
        #expect(p.renditions.allSatisfy { $0.type == .video })
        #expect(p.variants.map(\.video) == ["low", "mid", "hi", nil])
        #expect(p.variants.map(\.bandwidth) == [1_280_000, 2_560_000, 7_680_000, 65_000])
    }

    @Test func rfc8_8SessionData() throws {
        let p = try master("""
            #EXTM3U
            #EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="lyrics.json"

            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",LANGUAGE="en",VALUE="This is an example"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",LANGUAGE="es",VALUE="Este es un ejemplo"
            """)
        #expect(p.otherTags.count == 3)
        #expect(p.otherTags.allSatisfy { $0.name == "EXT-X-SESSION-DATA" })
        #expect(p.otherTags[2].value == #"DATA-ID="com.example.title",LANGUAGE="es",VALUE="Este es un ejemplo""#)
        #expect(p.variants.isEmpty)
    }

    // MARK: Lenient line grammar

    @Test func crlfBomCommentsBlankLinesAndUnknownTags() throws {
        let text = "\u{FEFF}#EXTM3U\r\n# a comment\r\n\r\n  \r\n#EXT-X-TARGETDURATION:4\r\n#EXT-X-VENDOR:x=1\r\n#EXTINF:4,\tTab title\r\na.ts\r\n#EXT-X-CUE-IN\r\n"
        let p = try media(text)
        #expect(p.targetDuration == 4)
        #expect(p.segments.count == 1)
        #expect(p.segments[0].otherTags == [HLSTag(name: "EXT-X-VENDOR", value: "x=1")])
        #expect(p.segments[0].title == "\tTab title")
        #expect(p.trailingTags == [HLSTag(name: "EXT-X-CUE-IN")])
        // Unknown tags survive a write and a re-read.
        #expect(try HLSParser.parse(try HLSWriter.write(p)) == .media(p))
    }

    @Test func extinfWithoutCommaIsReadLeniently() throws {
        let p = try media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5\na.ts")
        #expect(p.segments.first?.duration == 5)
        #expect(p.segments.first?.title == "")
    }

    @Test(arguments: [
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\r#EXTINF:5,\na.ts", HLSError.Code.invalidLineEnding, 2),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5,\na.ts\r", .invalidLineEnding, 4),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5,\u{0}\na.ts", .invalidEncoding, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5,\u{85}\na.ts", .invalidEncoding, 3),
        ("#EXTM3\n#EXT-X-TARGETDURATION:5", .missingHeader, 1),
        ("\n#EXTM3U\n#EXT-X-TARGETDURATION:5", .missingHeader, 1),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\na.ts", .missingTag, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5,", .missingURI, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5,\n#EXTINF:5,\na.ts", .duplicateTag, 4),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-TARGETDURATION:6", .duplicateTag, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:five", .invalidValue, 2),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:-1,\na.ts", .invalidValue, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:1e3,\na.ts", .invalidValue, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-PLAYLIST-TYPE:LIVE", .invalidValue, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-KEY:METHOD=AES-256,URI=\"k\"\n#EXTINF:5,\na.ts", .invalidValue, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-KEY:METHOD=AES-128\n#EXTINF:5,\na.ts", .missingAttribute, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-KEY:METHOD=NONE,URI=\"k\"\n#EXTINF:5,\na.ts", .unexpectedAttribute, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x0102\n#EXTINF:5,\na.ts", .invalidHex, 3),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-BYTERANGE:12@x\n#EXTINF:5,\na.ts", .invalidValue, 3),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXTINF:5,\na.ts", .mixedPlaylist, 3),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1", .missingURI, 2),
        ("#EXTM3U\n#EXT-X-STREAM-INF:CODECS=\"x\"\na.m3u8", .missingAttribute, 2),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,NAME=\"a\"", .missingAttribute, 2),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"c\",NAME=\"a\",URI=\"x\"", .unexpectedAttribute, 2),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\nstray.m3u8", .unexpectedURI, 4),
        ("#EXTM3U\n#EXT-X-SESSION-KEY:METHOD=NONE", .invalidValue, 2),
        ("#EXTM3U\n#EXTM3U\n#EXT-X-TARGETDURATION:5", .duplicateTag, 2),
    ])
    func lenientRefusals(text: String, code: HLSError.Code, line: Int) {
        let error = HLSExpect.lenientError(text)
        #expect(error?.code == code, "\(text)")
        #expect(error?.line == line, "\(text)")
    }

    @Test func invalidUTF8IsRefused() {
        var bytes = Array("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5,".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\na.ts".utf8)
        let error = HLSExpect.error { () throws(HLSError) in try HLSParser.parse(bytes) }
        #expect(error?.code == .invalidEncoding)
        #expect(error?.line == 3)
    }

    @Test func limitsAreCheckedFirst() {
        let small = HLSLimits(maxBytes: 64, maxLines: 4, maxSegments: 2, maxAttributes: 2)
        let big = String(repeating: "#", count: 65)
        #expect(HLSExpect.error { () throws(HLSError) in try HLSParser.parse(big, limits: small) }?.code == .tooLarge)
        #expect(HLSExpect.error { () throws(HLSError) in try HLSParser.parse(Data(big.utf8), limits: small) }?.code == .tooLarge)
        #expect(HLSExpect.error { () throws(HLSError) in try HLSParser.parse("\n\n\n\n\n", limits: small) }?.code == .tooManyLines)
        let three = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + String(repeating: "#EXTINF:1,\na\n", count: 3)
        let roomy = HLSLimits(maxBytes: 1000, maxLines: 100, maxSegments: 2, maxAttributes: 2)
        let error = HLSExpect.error { () throws(HLSError) in try HLSParser.parse(three, limits: roomy) }
        #expect(error?.code == .tooManySegments)
        #expect(error?.line == 8)
        let attrs = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,A=1,B=2\nv.m3u8"
        #expect(HLSExpect.error { () throws(HLSError) in try HLSParser.parse(attrs, limits: roomy) }?.code == .tooManyAttributes)
        // The fps-v2 limits are the default in strict mode: 1 MiB.
        let huge = "#EXTM3U\n" + String(repeating: "a", count: 1_048_576)
        #expect(HLSExpect.strictError(huge)?.code == .tooLarge)
    }

    @Test func parseMasterAndParseMediaCheckTheKind() throws {
        let media = Data(HLSFixtures.mediaText("video").utf8)
        let master = Data(HLSFixtures.masterWithAudio.utf8)
        #expect(try HLSParser.parseMedia(media).segments.count == 3)
        #expect(try HLSParser.parseMaster(master).variants.count == 1)
        #expect(HLSExpect.error { () throws(HLSError) in try HLSParser.parseMaster(media) } != nil)
        #expect(HLSExpect.error { () throws(HLSError) in try HLSParser.parseMedia(master) } != nil)
    }

    @Test func effectiveKeysFollowKeyFormatAndNone() throws {
        let p = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:5
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://a",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:x",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:5,
            s0.m4s
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://b",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXTINF:5,
            s1.m4s
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:5,
            s2.m4s
            """)
        #expect(p.effectiveKeys(forSegment: 0).compactMap(\.uri) == ["skd://a", "data:x"])
        #expect(p.effectiveKeys(forSegment: 1).compactMap(\.uri) == ["data:x", "skd://b"])
        #expect(p.effectiveKeys(forSegment: 2).isEmpty)
        #expect(p.effectiveKeys(forSegment: 9).isEmpty)
        #expect(p.effectiveMap(forSegment: 2)?.uri == "init.mp4")
    }
}
