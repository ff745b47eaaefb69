import Foundation
import Testing
@testable import MediaDRMHLS
import MediaDRMFPSv2

/// Every prefix of a valid playlist either parses or throws HLSError, never traps. In strict mode
/// every proper prefix throws; in lenient mode a prefix may be a valid shorter (live) playlist,
/// and then it agrees with the full one.
@Suite struct HLSTruncationTests {
    typealias F = HLSFixtures

    static let strictInputs: [String] = [F.masterWithAudio, F.masterVideoOnly, F.mediaText("video"), F.mediaText("audio")]

    @Test(arguments: strictInputs)
    func everyProperPrefixFailsStrictMode(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(try HLSParser.parse(bytes, mode: .fpsV2Strict) == HLSParser.parse(text, mode: .fpsV2Strict))
        for length in 0..<bytes.count {
            let error = HLSExpect.error { () throws(HLSError) in try HLSParser.parse(bytes[0..<length], mode: .fpsV2Strict) }
            #expect(error != nil, "prefix of \(length) bytes was accepted")
        }
    }

    static var lenientInputs: [String] {
        get throws {
            strictInputs + [
                try HLSWriter.write(F.richMedia),
                try HLSWriter.write(F.richMaster),
                F.mediaText("video").replacingOccurrences(of: "\n", with: "\r\n") + "\r\n",
                "\u{FEFF}#EXTM3U\n# comment\n\n#EXT-X-TARGETDURATION:10\n#EXT-X-VENDOR:a=\"b,c\"\n#EXTINF:9.5,title\nhttp://a/b.ts\n#EXTINF:10\nc.ts\n",
            ]
        }
    }

    @Test func everyPrefixParsesConsistentlyOrThrowsInLenientMode() throws {
        for text in try Self.lenientInputs {
            let bytes = Array(text.utf8)
            let full = try HLSParser.parse(bytes)
            var accepted = 0
            for length in 0..<bytes.count {
                let prefix = bytes[0..<length]
                let result: HLSPlaylist
                do {
                    result = try HLSParser.parse(prefix)
                } catch {
                    _ = error.code  // typed: an HLSError
                    continue
                }
                accepted += 1
                consistent(prefix: result, full: full, length: length)
            }
            // Some prefixes are shorter live playlists, so the check above ran.
            if full.media != nil { #expect(accepted > 0) }
        }
    }

    private func consistent(prefix: HLSPlaylist, full: HLSPlaylist, length: Int) {
        switch (prefix, full) {
        case (.media(let p), .media(let f)):
            #expect(p.segments.count <= f.segments.count, "prefix \(length)")
            #expect(p.targetDuration == f.targetDuration || String(f.targetDuration).hasPrefix(String(p.targetDuration)), "prefix \(length)")
            for (i, s) in p.segments.enumerated() where i < f.segments.count {
                let whole = f.segments[i]
                #expect(s.duration == whole.duration, "prefix \(length) segment \(i)")
                #expect(s.keys == whole.keys && s.map == whole.map && s.byteRange == whole.byteRange, "prefix \(length) segment \(i)")
                if i < p.segments.count - 1 {
                    #expect(s == whole, "prefix \(length) segment \(i)")
                } else {
                    // The last URI line may itself be cut short.
                    #expect(whole.uri.hasPrefix(s.uri), "prefix \(length) segment \(i)")
                }
            }
            if p.endList { #expect(p == f, "prefix \(length)") }
        case (.master(let p), .master(let f)):
            #expect(p.variants.count <= f.variants.count, "prefix \(length)")
            #expect(p.renditions.count <= f.renditions.count, "prefix \(length)")
            for (i, v) in p.variants.enumerated() where i < f.variants.count {
                #expect(v.bandwidth == f.variants[i].bandwidth || i == p.variants.count - 1, "prefix \(length)")
                #expect(f.variants[i].uri.hasPrefix(v.uri), "prefix \(length)")
            }
        default:
            // A cut master can never look like a media playlist with a target duration, and the
            // reverse: a prefix keeps the kind-deciding tags it has.
            Issue.record("prefix \(length) changed the playlist kind")
        }
    }

    @Test func hostileInputsNeverTrap() {
        var rng = SplitMix(seed: 99)
        let alphabet = Array("#EXT-X-KEY:METHOD=,\"0x\r\n\t 9.-@xURI=INF".utf8) + [0x00, 0xC3, 0xFF, 0x80]
        let base = Array(F.mediaText("video").utf8)
        for round in 0..<3_000 {
            var bytes = base
            for _ in 0..<(1 + Int(rng.next() % 6)) {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                case 1: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                default: bytes.remove(at: at)
                }
            }
            for mode in [HLSParser.Mode.lenient, .fpsV2Strict] {
                if let parsed = try? HLSParser.parse(bytes, mode: mode), mode == .fpsV2Strict {
                    // Whatever strict mode accepts, the writer reproduces and strict mode re-reads.
                    let again = try? HLSParser.parse(HLSWriter.write(parsed), mode: .fpsV2Strict)
                    #expect(again == parsed, "round \(round)")
                }
            }
        }
    }
}
