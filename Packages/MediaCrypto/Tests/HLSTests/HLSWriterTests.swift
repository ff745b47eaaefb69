import Foundation
import Testing
@testable import MediaDRMHLS
import MediaDRMFPSv2

@Suite struct HLSWriterTests {
    typealias F = HLSFixtures

    @Test func fpsV2BuildersWriteTheAppendixA3Bytes() throws {
        #expect(try HLSWriter.write(F.masterModel(audio: true)) == F.masterWithAudio)
        #expect(try HLSWriter.write(F.masterModel(audio: false)) == F.masterVideoOnly)
        #expect(try HLSWriter.write(F.mediaModel("video")) == F.mediaText("video"))
        #expect(try HLSWriter.write(F.mediaModel("audio")) == F.mediaText("audio"))
        #expect(try HLSWriter.data(.media(F.mediaModel("audio"))) == Data(F.mediaText("audio").utf8))
    }

    @Test func fpsV2ShapedModelsRoundTripThroughStrictMode() throws {
        // Uneven durations, a longer stream, lower-case codec input, 5.1 audio in German.
        var durations: [Double] = []
        var rng = SplitMix(seed: 7)
        for _ in 0..<500 { durations.append(Double(rng.next() % 6_000_000 + 1) / 1_000_000) }
        durations.append(6.006)
        let media = HLSFPSv2.mediaPlaylist(component: "audio", policyUUID: F.uuid, iv: nil, segmentDurations: durations)
        #expect(media.targetDuration == 6)
        let text = try HLSWriter.write(media)
        #expect(try HLSParser.parse(text, mode: .fpsV2Strict) == .media(media))
        #expect(!text.hasSuffix("\n"))

        let video = HLSFPSv2.Video(bandwidth: 5_000_000, averageBandwidth: 4_000_000, codec: "avc1.64001f",
                                   resolution: HLSResolution(width: 1279, height: 719), frameRate: 29.97)
        let master = HLSFPSv2.masterPlaylist(video: video, audio: HLSFPSv2.Audio(language: "de", channels: 6))
        let masterText = try HLSWriter.write(master)
        #expect(masterText.contains(#"CODECS="avc1.64001F,mp4a.40.2""#))
        #expect(masterText.contains("FRAME-RATE=29.970,"))
        #expect(try HLSParser.parse(masterText, mode: .fpsV2Strict) == .master(master))
    }

    @Test func generalModelsRoundTripThroughLenientMode() throws {
        let media = F.richMedia
        let text = try HLSWriter.write(media)
        #expect(try HLSParser.parse(text) == .media(media))
        #expect(text.contains("#EXTINF:9.00900,first, with a comma"))
        #expect(text.contains("IV=0xABABABABABABABABABABABABABABABAB"))
        #expect(text.contains(#"#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0""#))
        // 1/3 needs more than five decimals to read back exactly; it gets them.
        #expect(text.contains("#EXTINF:0.333333333333333"))

        let master = F.richMaster
        let masterText = try HLSWriter.write(master)
        #expect(try HLSParser.parse(masterText) == .master(master))
        #expect(masterText.contains("FRAME-RATE=29.970,"))
        #expect(masterText.contains("CLOSED-CAPTIONS=NONE"))
        // Not fps-v2 shaped: strict mode says so.
        #expect(HLSExpect.strictError(masterText) != nil)
        #expect(HLSExpect.strictError(text) != nil)
    }

    @Test func randomModelsRoundTrip() throws {
        var rng = SplitMix(seed: 2024)
        for _ in 0..<200 {
            var segments: [HLSSegment] = []
            let count = Int(rng.next() % 20)
            for n in 0..<count {
                let duration = Double(rng.next() % 100_000_000) / Double([1, 10, 1000, 7, 3][Int(rng.next() % 5)])
                var s = HLSSegment(duration: duration, uri: "s\(n).ts", title: rng.next() % 3 == 0 ? "t,\(n)" : "")
                if rng.next() % 4 == 0 { s.byteRange = HLSByteRange(length: Int(rng.next() % 1000), offset: rng.next() % 2 == 0 ? nil : Int(rng.next() % 1000)) }
                if rng.next() % 5 == 0 { s.discontinuity = true }
                if rng.next() % 5 == 0 {
                    var iv = Data(count: 16)
                    for i in 0..<16 { iv[i] = UInt8(truncatingIfNeeded: rng.next()) }
                    s.keys = [HLSKey(method: .aes128, uri: "k\(n)", iv: iv)]
                }
                if rng.next() % 6 == 0 { s.otherTags = [HLSTag(name: "EXT-X-X\(n)", value: rng.next() % 2 == 0 ? nil : "v")] }
                segments.append(s)
            }
            let p = HLSMediaPlaylist(version: Int(rng.next() % 8), targetDuration: Int(rng.next() % 20),
                                     mediaSequence: rng.next() % 2 == 0 ? nil : Int(rng.next() % 99),
                                     playlistType: [nil, .vod, .event][Int(rng.next() % 3)], segments: segments,
                                     endList: rng.next() % 2 == 0)
            #expect(try HLSParser.parse(try HLSWriter.write(p)) == .media(p))
        }
    }

    @Test func decimalFormatting() {
        #expect(HLSSyntax.formatDecimal(6, minimumFractionDigits: 5) == "6.00000")
        #expect(HLSSyntax.formatDecimal(4.5, minimumFractionDigits: 5) == "4.50000")
        #expect(HLSSyntax.formatDecimal(30, minimumFractionDigits: 3) == "30.000")
        #expect(HLSSyntax.formatDecimal(23.976, minimumFractionDigits: 3) == "23.976")
        for value in [1.0 / 3.0, 0.1 + 0.2, 1e-7, 123_456_789.123_456_78, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude] {
            let text = HLSSyntax.formatDecimal(value, minimumFractionDigits: 5)
            #expect(HLSSyntax.decimalFloat(text)?.value == value, "\(value)")
        }
    }

    @Test func writerRefusesModelsItCannotWriteFaithfully() {
        func media(_ edit: (inout HLSMediaPlaylist) -> Void) -> HLSError? {
            var p = F.mediaModel("video")
            edit(&p)
            return HLSExpect.error { () throws(HLSError) in try HLSWriter.write(p) }
        }
        func master(_ edit: (inout HLSMasterPlaylist) -> Void) -> HLSError? {
            var p = F.masterModel(audio: true)
            edit(&p)
            return HLSExpect.error { () throws(HLSError) in try HLSWriter.write(p) }
        }
        // Line injection through a title, a URI or a quoted value.
        #expect(media { $0.segments[0].title = "x\n#EXT-X-KEY:METHOD=NONE" }?.code == .invalidValue)
        #expect(media { $0.segments[0].uri = "a.ts\nb.ts" }?.code == .invalidURI)
        #expect(media { $0.segments[0].uri = "#EXT-X-ENDLIST" }?.code == .invalidURI)
        #expect(media { $0.segments[0].uri = "" }?.code == .invalidURI)
        #expect(media { $0.segments[0].keys[0].uri = "skd://a\",METHOD=NONE" }?.code == .invalidValue)
        #expect(media { $0.segments[0].keys[0].keyFormat = "a\nb" }?.code == .invalidValue)
        // Attribute and tag names the reader would interpret differently.
        #expect(media { $0.segments[0].keys[0].otherAttributes = [.quoted("URI", "x")] }?.code == .duplicateAttribute)
        #expect(media { $0.segments[0].keys[0].otherAttributes = [.quoted("lower", "x")] }?.code == .malformedAttributeList)
        #expect(media { $0.segments[0].keys[0].otherAttributes = [.unquoted("X", "")] }?.code == .invalidValue)
        #expect(media { $0.segments[0].keys[0].otherAttributes = [.unquoted("X", "a,b")] }?.code == .invalidValue)
        #expect(media { $0.segments[0].otherTags = [HLSTag(name: "EXT-X-KEY", value: "METHOD=NONE")] }?.code == .invalidValue)
        #expect(media { $0.segments[0].otherTags = [HLSTag(name: "EXT-X-STREAM-INF", value: "BANDWIDTH=1")] }?.code == .invalidValue)
        #expect(media { $0.trailingTags = [HLSTag(name: "NOT-EXT")] }?.code == .invalidValue)
        #expect(media { $0.trailingTags = [HLSTag(name: "EXT-X-A:B")] }?.code == .invalidValue)
        // Values out of range.
        #expect(media { $0.segments[0].duration = .nan }?.code == .invalidValue)
        #expect(media { $0.segments[0].duration = -1 }?.code == .invalidValue)
        #expect(media { $0.targetDuration = -6 }?.code == .invalidValue)
        #expect(media { $0.segments[0].keys[0].iv = Data(count: 15) }?.code == .invalidHex)
        #expect(media { $0.segments[0].keys[0] = HLSKey(method: .none, uri: "k") }?.code == .unexpectedAttribute)
        #expect(media { $0.segments[0].keys[0] = HLSKey(method: .aes128) }?.code == .missingAttribute)
        #expect(media { $0.segments[0].byteRange = HLSByteRange(length: -1) }?.code == .invalidValue)
        #expect(media { $0.segments[0].programDateTime = "" }?.code == .invalidValue)
        #expect(master { $0.variants[0].codecs = [] }?.code == .invalidValue)
        #expect(master { $0.variants[0].codecs = ["a,b"] }?.code == .invalidValue)
        #expect(master { $0.variants[0].bandwidth = -1 }?.code == .invalidValue)
        #expect(master { $0.variants[0].frameRate = .infinity }?.code == .invalidValue)
        #expect(master { $0.renditions[0].name = "say \"hi\"" }?.code == .invalidValue)
        #expect(master { $0.sessionKeys = [HLSKey(method: .none)] }?.code == .invalidValue)
        #expect(master { $0.otherTags = [HLSTag(name: "EXTINF", value: "1,")] }?.code == .invalidValue)
        #expect(master { $0.renditions.append(HLSRendition(type: .closedCaptions, groupID: "c", name: "c")) }?.code == .invalidValue)
        #expect(master { $0 = HLSMasterPlaylist(version: 7, otherTags: [HLSTag(name: "EXT-X-START", value: "TIME-OFFSET=0")]) }?.code == .missingTag)
    }
}

/// A small deterministic generator so failures reproduce.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
