// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import Testing
@testable import MediaDRMHLS
import MediaDRMFPSv2

/// The fps-v2 §7 closed grammar: the Appendix A.3 playlists pass strict mode and read as the
/// builders' models; each rule violation fails with its code and line.
@Suite struct FPSv2GrammarTests {
    typealias F = HLSFixtures

    @Test(arguments: ["video", "audio"])
    func appendixA3MediaPlaylistsPassStrictMode(id: String) throws {
        let parsed = try HLSParser.parse(F.mediaText(id), mode: .fpsV2Strict)
        #expect(parsed == .media(F.mediaModel(id)))
        let media = try #require(parsed.media)
        #expect(media.segments.map(\.uri) == ["\(id)-segment0.m4s", "\(id)-segment1.m4s", "\(id)-segment2.m4s"])
        #expect(media.segments[0].keys.first?.iv == F.iv)
        #expect(media.duration == 16.5)
        let identity = try #require(HLSFPSv2.keyIdentity(of: media))
        #expect(identity.policyUUID == F.uuid)
        #expect(identity.component == id)
        #expect(identity.iv == F.iv)
        // A trailing newline is optional (§7.1 #1).
        #expect(try HLSParser.parse(F.mediaText(id) + "\n", mode: .fpsV2Strict) == parsed)
    }

    @Test func appendixA3MasterPlaylistsPassStrictMode() throws {
        #expect(try HLSParser.parse(F.masterWithAudio, mode: .fpsV2Strict) == .master(F.masterModel(audio: true)))
        #expect(try HLSParser.parse(F.masterVideoOnly, mode: .fpsV2Strict) == .master(F.masterModel(audio: false)))
    }

    @Test func readerAcceptsEitherHexCaseAndAnyMasterLineOrder() throws {
        var media = F.lines(F.mediaText("video"))
        media[6] = media[6].replacingOccurrences(of: "IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF", with: "IV=0xf0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        #expect(try HLSParser.parse(F.joined(media), mode: .fpsV2Strict) == .media(F.mediaModel("video")))
        // Key after the map, header tags after the key: still before the first EXTINF.
        var reordered = F.lines(F.mediaText("audio"))
        reordered.swapAt(6, 7)
        reordered.swapAt(1, 5)
        #expect(try HLSParser.parse(F.joined(reordered), mode: .fpsV2Strict).media?.segments.count == 3)
        // Master lines in another order; CODECS in the other order; lower-case avc1 hex.
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:AUDIO="audio",FRAME-RATE=29.97,RESOLUTION=1280x720,CODECS="mp4a.40.2,avc1.64001f",AVERAGE-BANDWIDTH=900000,BANDWIDTH=900000
            video.m3u8
            #EXT-X-MEDIA:URI="audio.m3u8",CHANNELS="8",AUTOSELECT=YES,DEFAULT=YES,LANGUAGE="zh-Hant-TW",NAME="Audio",GROUP-ID="audio",TYPE=AUDIO
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-VERSION:7
            """
        let parsed = try #require(try HLSParser.parse(master, mode: .fpsV2Strict).master)
        #expect(parsed.variants.first?.codecs == ["mp4a.40.2", "avc1.64001f"])
        #expect(parsed.renditions.first?.channels == "8")
        // A media playlist without IV and without the optional tags.
        let minimal = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-TARGETDURATION:7
            #EXT-X-MAP:URI="video-init.mp4"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://\(F.uuid)/video",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXTINF:6.5,a title
            video-segment0.m4s
            #EXT-X-ENDLIST
            """
        let m = try #require(try HLSParser.parse(minimal, mode: .fpsV2Strict).media)
        #expect(m.segments.first?.title == "a title")
        #expect(m.segments.first?.keys.first?.iv == nil)
        #expect(m.mediaSequence == nil)
    }

    /// Replace line `index` (0-based) of the A.3 video playlist, or insert before it.
    private func mediaWith(_ edit: (inout [String]) -> Void, id: String = "video") -> String {
        var lines = F.lines(F.mediaText(id))
        edit(&lines)
        return F.joined(lines)
    }

    private func masterWith(_ edit: (inout [String]) -> Void, audio: Bool = true) -> String {
        var lines = F.lines(audio ? F.masterWithAudio : F.masterVideoOnly)
        edit(&lines)
        return F.joined(lines)
    }

    private func check(_ text: String, _ code: HLSError.Code, line: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = HLSExpect.strictError(text)
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.line == line, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    // MARK: The violations fps-v2 §7 names

    @Test func crlfIsRefused() throws {
        check(F.mediaText("video").replacingOccurrences(of: "\n", with: "\r\n"), .invalidLineEnding, line: 1)
        check(mediaWith { $0[9] += "\r" }, .invalidLineEnding, line: 10)
        check(F.masterWithAudio + "\r", .invalidLineEnding, line: 6)
        // Lenient mode reads the same CRLF text.
        #expect(try HLSParser.parse(F.mediaText("video").replacingOccurrences(of: "\n", with: "\r\n")) == .media(F.mediaModel("video")))
    }

    @Test func blankLineIsRefused() {
        check(mediaWith { $0.insert("", at: 3) }, .blankLine, line: 4)
        check(F.mediaText("video") + "\n\n", .blankLine, line: 16)
        check(masterWith { $0.insert("", at: 1) }, .blankLine, line: 2)
    }

    @Test func commentIsRefused() {
        check(mediaWith { $0.insert("# made by hand", at: 8) }, .commentLine, line: 9)
        check(masterWith { $0.insert("#", at: 3) }, .commentLine, line: 4)
    }

    @Test func unknownTagIsRefused() {
        check(mediaWith { $0.insert("#EXT-X-FOO:1", at: 3) }, .unknownTag, line: 4)
        check(masterWith { $0.insert("#EXT-X-APPLE-THING", at: 2) }, .unknownTag, line: 3)
        // Lenient mode keeps it.
        let lenient = try? HLSParser.parse(mediaWith { $0.insert("#EXT-X-FOO:1", at: 3) })
        #expect(lenient?.media?.segments.first?.otherTags == [HLSTag(name: "EXT-X-FOO", value: "1")])
    }

    @Test func missingEndListIsRefused() {
        check(mediaWith { $0.removeLast() }, .missingTag, line: 14)
        check(mediaWith { $0.removeLast(); $0.append("") }, .missingTag, line: 14)
    }

    @Test func wrongOrderIsRefused() {
        // The key after the first segment: the EXTINF that comes first is where the rule breaks.
        check(mediaWith { let key = $0.remove(at: 6); $0.insert(key, at: 9) }, .tagOrder, line: 8)
        // The map after the first segment.
        check(mediaWith { let map = $0.remove(at: 7); $0.insert(map, at: 9) }, .tagOrder, line: 8)
        // A segment after EXT-X-ENDLIST.
        check(mediaWith { let end = $0.remove(at: 14); $0.insert(end, at: 12) }, .tagOrder, line: 14)
        // A tag between EXTINF and its URI.
        check(mediaWith { $0.insert("#EXT-X-INDEPENDENT-SEGMENTS", at: 9); $0.remove(at: 5) }, .tagOrder, line: 9)
        // MEDIA-SEQUENCE after the first segment.
        check(mediaWith { let seq = $0.remove(at: 3); $0.insert(seq, at: 9) }, .tagOrder, line: 10)
        // Segments out of sequence.
        check(mediaWith { $0.swapAt(9, 11) }, .invalidURI, line: 10)
        // The master variant URI not right after EXT-X-STREAM-INF.
        check(masterWith { let uri = $0.remove(at: 5); $0.insert(uri, at: 4) }, .unexpectedURI, line: 5)
        check(masterWith { let v = $0.remove(at: 1); $0.insert(v, at: 4) }, .tagOrder, line: 5)
    }

    @Test func badIVHexIsRefused() {
        let good = "IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"
        for bad in ["IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFG", "IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFE",
                    "IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF00", "IV=F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF00",
                    "IV=\"0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF\"", "IV=0x"] {
            check(mediaWith { $0[6] = $0[6].replacingOccurrences(of: good, with: bad) }, .invalidHex, line: 7)
        }
    }

    @Test func duplicateAttributeIsRefused() {
        check(mediaWith { $0[6] += ",METHOD=SAMPLE-AES" }, .duplicateAttribute, line: 7)
        check(masterWith { $0[4] += ",BANDWIDTH=1" }, .duplicateAttribute, line: 5)
        check(masterWith { $0[3] += #",NAME="Audio""# }, .duplicateAttribute, line: 4)
    }

    // MARK: The rest of §7

    @Test func mediaPlaylistRules() {
        let keyLine = 6
        let strictKey = F.lines(F.mediaText("video"))[keyLine]
        // Values.
        check(mediaWith { $0[1] = "#EXT-X-VERSION:6" }, .invalidValue, line: 2)
        check(mediaWith { $0[2] = "#EXT-X-TARGETDURATION:0" }, .invalidValue, line: 3)
        check(mediaWith { $0[3] = "#EXT-X-MEDIA-SEQUENCE:1" }, .invalidValue, line: 4)
        check(mediaWith { $0[4] = "#EXT-X-PLAYLIST-TYPE:EVENT" }, .invalidValue, line: 5)
        check(mediaWith { $0[5] = "#EXT-X-INDEPENDENT-SEGMENTS:YES" }, .invalidValue, line: 6)
        check(mediaWith { $0[14] = "#EXT-X-ENDLIST:1" }, .invalidValue, line: 15)
        // The key tag (§7.3 #3).
        check(mediaWith { $0[keyLine] = "#EXT-X-KEY:METHOD=NONE" }, .missingAttribute, line: 7)
        check(mediaWith { $0[keyLine] = strictKey.replacingOccurrences(of: "METHOD=SAMPLE-AES", with: "METHOD=AES-128") }, .invalidValue, line: 7)
        check(mediaWith { $0[keyLine] = strictKey.replacingOccurrences(of: "KEYFORMATVERSIONS=\"1\"", with: "KEYFORMATVERSIONS=\"1/2\"") }, .invalidValue, line: 7)
        check(mediaWith { $0[keyLine] = strictKey.replacingOccurrences(of: "com.apple.streamingkeydelivery", with: "identity") }, .invalidValue, line: 7)
        check(mediaWith { $0[keyLine] = strictKey + ",KEYID=0x00" }, .unexpectedAttribute, line: 7)
        check(mediaWith { $0[keyLine] = strictKey.replacingOccurrences(of: "3f1c9e2a", with: "3F1C9E2A") }, .invalidURI, line: 7)
        check(mediaWith { $0[keyLine] = strictKey.replacingOccurrences(of: "/video\"", with: "/image\"") }, .invalidURI, line: 7)
        check(mediaWith { $0[keyLine] = strictKey.replacingOccurrences(of: "/video\"", with: "\"") }, .invalidURI, line: 7)
        check(mediaWith { $0.insert(strictKey, at: 7) }, .duplicateTag, line: 8)
        check(mediaWith { $0.remove(at: keyLine) }, .tagOrder, line: 8)
        // The key's component must match the map and segments.
        check(mediaWith { $0[keyLine] = strictKey.replacingOccurrences(of: "/video\"", with: "/audio\"") }, .invalidURI, line: 8)
        // The map (§7.3 #1).
        check(mediaWith { $0[7] = #"#EXT-X-MAP:URI="video-init.mp4",BYTERANGE="100@0""# }, .unexpectedAttribute, line: 8)
        check(mediaWith { $0[7] = #"#EXT-X-MAP:URI="init.mp4""# }, .invalidURI, line: 8)
        // EXTINF (§7.3 #4).
        check(mediaWith { $0[8] = "#EXTINF:6.00000" }, .invalidValue, line: 9)
        check(mediaWith { $0[8] = "#EXTINF:0," }, .invalidValue, line: 9)
        check(mediaWith { $0[8] = "#EXTINF:6e0," }, .invalidValue, line: 9)
        check(mediaWith { $0[8] = "#EXTINF:+6," }, .invalidValue, line: 9)
        check(mediaWith { $0[8] = "#EXTINF:6.5," }, .invalidValue, line: 9)
        check(mediaWith { $0[8] = "#EXTINF:6.00000,\ttab" }, .invalidEncoding, line: 9)
        // Refused tags (§7.3 #6) and missing ones.
        check(mediaWith { $0.insert("#EXT-X-BYTERANGE:100@0", at: 8) }, .unexpectedTag, line: 9)
        check(mediaWith { $0.insert("#EXT-X-DISCONTINUITY", at: 10) }, .unexpectedTag, line: 11)
        check(mediaWith { $0.insert(#"#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://x""#, at: 2) }, .unexpectedTag, line: 3)
        check(mediaWith { $0.insert("#EXT-X-STREAM-INF:BANDWIDTH=1", at: 2) }, .unexpectedTag, line: 3)
        check(mediaWith { $0.remove(at: 4) }, .missingTag, line: 14)
        check(mediaWith { $0.remove(at: 2) }, .missingTag, line: 14)
        check(mediaWith { $0.removeSubrange(8...13) }, .missingTag, line: 9)
        check(mediaWith { $0[9] = "video-segment0.m4s?x=1" }, .invalidURI, line: 10)
        check(mediaWith { $0[9] = "https://cdn.example/video-segment0.m4s" }, .invalidURI, line: 10)
        check(mediaWith { $0.insert("video-segment9.m4s", at: 8) }, .unexpectedURI, line: 9)
    }

    @Test func segmentCountIsBounded() {
        var lines = Array(F.lines(F.mediaText("video"))[0..<8])
        for n in 0...4_093 {
            lines.append("#EXTINF:1.00000,")
            lines.append("video-segment\(n).m4s")
        }
        lines.append("#EXT-X-ENDLIST")
        check(F.joined(lines), .tooManySegments, line: 9 + 2 * 4_093)
        // 4,093 segments are allowed.
        lines.removeSubrange((lines.count - 3)...(lines.count - 2))
        #expect(HLSExpect.strictError(F.joined(lines)) == nil)
    }

    @Test func masterPlaylistRules() {
        let media = F.lines(F.masterWithAudio)[3]
        let inf = F.lines(F.masterWithAudio)[4]
        check(masterWith { $0[1] = "#EXT-X-VERSION:07" }, .invalidValue, line: 2)
        check(masterWith { $0.remove(at: 2) }, .missingTag, line: 5)
        check(masterWith { $0.remove(at: 1) }, .missingTag, line: 5)
        check(masterWith { $0.insert($0[2], at: 2) }, .duplicateTag, line: 4)
        // Exactly one rendition and one variant (§7.2 #3, #4, #5).
        check(masterWith { $0.insert(media, at: 3) }, .duplicateTag, line: 5)
        check(masterWith { $0.append(inf); $0.append("video.m3u8") }, .duplicateTag, line: 7)
        check(masterWith { $0.insert(#"#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://x""#, at: 2) }, .unexpectedTag, line: 3)
        check(masterWith { $0.insert(#"#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="i.m3u8""#, at: 2) }, .unexpectedTag, line: 3)
        check(masterWith { $0.insert(#"#EXT-X-SESSION-DATA:DATA-ID="a",VALUE="b""#, at: 2) }, .unexpectedTag, line: 3)
        // Rendition attributes.
        check(masterWith { $0[3] = media.replacingOccurrences(of: #",CHANNELS="2""#, with: "") }, .missingAttribute, line: 4)
        check(masterWith { $0[3] = media + #",FORCED=NO"# }, .unexpectedAttribute, line: 4)
        check(masterWith { $0[3] = media.replacingOccurrences(of: #"CHANNELS="2""#, with: #"CHANNELS="7""#) }, .invalidValue, line: 4)
        check(masterWith { $0[3] = media.replacingOccurrences(of: #"LANGUAGE="und""#, with: #"LANGUAGE="e""#) }, .invalidValue, line: 4)
        check(masterWith { $0[3] = media.replacingOccurrences(of: #"LANGUAGE="und""#, with: #"LANGUAGE="en-""#) }, .invalidValue, line: 4)
        check(masterWith { $0[3] = media.replacingOccurrences(of: "DEFAULT=YES", with: "DEFAULT=NO") }, .invalidValue, line: 4)
        check(masterWith { $0[3] = media.replacingOccurrences(of: #"NAME="Audio""#, with: #"NAME="English""#) }, .invalidValue, line: 4)
        check(masterWith { $0[3] = media.replacingOccurrences(of: #"URI="audio.m3u8""#, with: #"URI="../audio.m3u8""#) }, .invalidURI, line: 4)
        // Variant attributes.
        check(masterWith { $0[4] = inf.replacingOccurrences(of: "BANDWIDTH=2500000", with: "BANDWIDTH=02500000") }, .invalidValue, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: "AVERAGE-BANDWIDTH=2000000", with: "AVERAGE-BANDWIDTH=3000000") }, .inconsistent, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: "avc1.640028", with: "avc1.64002") }, .invalidValue, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: "avc1.640028", with: "hvc1.1.6.L93.B0") }, .invalidValue, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: "mp4a.40.2", with: "mp4a.40.5") }, .invalidValue, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: "1920x1080", with: "0x1080") }, .invalidValue, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: "FRAME-RATE=30.000", with: "FRAME-RATE=29.9700") }, .invalidValue, line: 5)
        check(masterWith { $0[4] = inf + ",HDCP-LEVEL=TYPE-1" }, .unexpectedAttribute, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: ",RESOLUTION=1920x1080", with: "") }, .missingAttribute, line: 5)
        check(masterWith { $0[5] = "low.m3u8" }, .invalidURI, line: 6)
        check(masterWith { $0.removeLast() }, .missingURI, line: 5)
        // The rendition, AUDIO and mp4a.40.2 go together (§7.2).
        check(masterWith { $0.remove(at: 3) }, .inconsistent, line: 4)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: #",AUDIO="audio""#, with: "") }, .inconsistent, line: 5)
        check(masterWith { $0[4] = inf.replacingOccurrences(of: ",mp4a.40.2", with: "") }, .inconsistent, line: 5)
        check(masterWith({ $0[3] += #",AUDIO="audio""# }, audio: false), .inconsistent, line: 4)
    }

    @Test func strictModeRefusesByteOrderMarkAndTabs() {
        check("\u{FEFF}" + F.masterWithAudio, .invalidEncoding, line: 1)
        check(" " + F.masterWithAudio, .missingHeader, line: 1)
        check(F.masterWithAudio.replacingOccurrences(of: "#EXTM3U", with: "#EXTM3U "), .missingHeader, line: 1)
    }
}
