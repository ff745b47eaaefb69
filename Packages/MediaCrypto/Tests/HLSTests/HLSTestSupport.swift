import Foundation
import Testing
@testable import MediaDRMHLS
import MediaDRMFPSv2

/// Fixtures and helpers shared by the HLS tests.
enum HLSFixtures {
    static let uuid = "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"
    static let iv = Data((0xF0...0xFF).map { UInt8($0) })
    static let durations = [6.0, 6.0, 4.5]

    /// fps-v2 Appendix A.3: the bytes ArkavoMediaKit writes (LF, no trailing newline).
    static let masterWithAudio = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Audio",LANGUAGE="und",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=30.000,AUDIO="audio"
        video.m3u8
        """

    static let masterVideoOnly = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-STREAM-INF:BANDWIDTH=2400000,AVERAGE-BANDWIDTH=1900000,CODECS="avc1.640028",RESOLUTION=1920x1080,FRAME-RATE=30.000
        video.m3u8
        """

    static func mediaText(_ id: String) -> String {
        """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b/\(id)",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1",IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF
        #EXT-X-MAP:URI="\(id)-init.mp4"
        #EXTINF:6.00000,
        \(id)-segment0.m4s
        #EXTINF:6.00000,
        \(id)-segment1.m4s
        #EXTINF:4.50000,
        \(id)-segment2.m4s
        #EXT-X-ENDLIST
        """
    }

    static let video = HLSFPSv2.Video(bandwidth: 2_500_000, averageBandwidth: 2_000_000, codec: "avc1.640028",
                                      resolution: HLSResolution(width: 1920, height: 1080), frameRate: 30)

    static func masterModel(audio: Bool) -> HLSMasterPlaylist {
        if audio { return HLSFPSv2.masterPlaylist(video: video, audio: HLSFPSv2.Audio(language: "und", channels: 2)) }
        var v = video
        v.bandwidth = 2_400_000
        v.averageBandwidth = 1_900_000
        return HLSFPSv2.masterPlaylist(video: v, audio: nil)
    }

    static func mediaModel(_ id: String) -> HLSMediaPlaylist {
        HLSFPSv2.mediaPlaylist(component: id, policyUUID: uuid, iv: iv, segmentDurations: durations)
    }

    /// A general-HLS media playlist using every modeled media feature.
    static var richMedia: HLSMediaPlaylist {
        let key1 = HLSKey(method: .aes128, uri: "https://keys.example/k1?a=1,b=2", iv: Data(repeating: 0xAB, count: 16),
                          otherAttributes: [.unquoted("X-VENDOR", "ONE")])
        let key2 = HLSKey(method: .sampleAESCTR, uri: "skd://x", keyFormat: "com.apple.streamingkeydelivery", keyFormatVersions: "1/2")
        let none = HLSKey(method: .none)
        return HLSMediaPlaylist(
            version: 6, targetDuration: 10, mediaSequence: 42, discontinuitySequence: 3, playlistType: .event,
            iFramesOnly: false, independentSegments: true,
            segments: [
                HLSSegment(duration: 9.009, uri: "seg0.mp4", title: "first, with a comma", programDateTime: "2024-01-02T03:04:05.678Z",
                           keys: [key1, key2], map: HLSMap(uri: "init.mp4", byteRange: HLSByteRange(length: 720, offset: 0)),
                           otherTags: [HLSTag(name: "EXT-X-DATERANGE", value: "ID=\"ad\",START-DATE=\"2024-01-02T03:04:05Z\""),
                                       HLSTag(name: "EXT-X-VENDOR-FLAG")]),
                HLSSegment(duration: 1.0 / 3.0, uri: "seg0.mp4", byteRange: HLSByteRange(length: 1000, offset: 720)),
                HLSSegment(duration: 4, uri: "seg0.mp4", byteRange: HLSByteRange(length: 500)),
                HLSSegment(duration: 0.5, uri: "https://cdn.example/seg3.ts", discontinuity: true, keys: [none]),
            ],
            trailingTags: [HLSTag(name: "EXT-X-VENDOR-END", value: "")], endList: true)
    }

    static var richMaster: HLSMasterPlaylist {
        HLSMasterPlaylist(
            version: 6, independentSegments: true,
            sessionKeys: [HLSKey(method: .sampleAES, uri: "skd://session", iv: Data(count: 16), keyFormat: "com.apple.streamingkeydelivery")],
            renditions: [
                HLSRendition(type: .audio, groupID: "aac", name: "English", language: "en", isDefault: true, autoselect: true,
                             channels: "2", uri: "en.m3u8"),
                HLSRendition(type: .audio, groupID: "aac", name: "Deutsch", language: "de", assocLanguage: "de-AT", autoselect: true,
                             characteristics: "public.accessibility.describes-video", uri: "de.m3u8"),
                HLSRendition(type: .subtitles, groupID: "subs", name: "English", language: "en", forced: true, uri: "subs.m3u8"),
                HLSRendition(type: .closedCaptions, groupID: "cc", name: "CC1", instreamID: "CC1"),
            ],
            variants: [
                HLSVariant(uri: "low/index.m3u8", bandwidth: 1_280_000, averageBandwidth: 1_000_000, codecs: ["avc1.4D401F", "mp4a.40.2"],
                           resolution: HLSResolution(width: 640, height: 360), frameRate: 29.97, hdcpLevel: "NONE", audio: "aac",
                           subtitles: "subs", closedCaptions: .group("cc"), otherAttributes: [.quoted("X-NOTE", "a, b")]),
                HLSVariant(uri: "hi/index.m3u8", bandwidth: 7_680_000, codecs: ["avc1.640028"], frameRate: 30000.0 / 1001.0,
                           video: "v", closedCaptions: HLSVariant.ClosedCaptions.none),
            ],
            iFrameVariants: [HLSIFrameVariant(uri: "low/iframe.m3u8", bandwidth: 86_000, codecs: ["avc1.4D401F"],
                                              resolution: HLSResolution(width: 640, height: 360))],
            otherTags: [HLSTag(name: "EXT-X-SESSION-DATA", value: "DATA-ID=\"com.example.title\",VALUE=\"Example\""),
                        HLSTag(name: "EXT-X-START", value: "TIME-OFFSET=-12.5")])
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func joined(_ lines: [String]) -> String { lines.joined(separator: "\n") }
}

enum HLSExpect {
    /// The error `body` throws, or nil when it returns.
    static func error<T>(_ body: () throws(HLSError) -> T) -> HLSError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    static func strictError(_ text: String) -> HLSError? {
        error { () throws(HLSError) in try HLSParser.parse(text, mode: .fpsV2Strict) }
    }

    static func lenientError(_ text: String) -> HLSError? {
        error { () throws(HLSError) in try HLSParser.parse(text, mode: .lenient) }
    }
}
