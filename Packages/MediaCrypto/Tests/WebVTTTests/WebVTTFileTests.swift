// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Testing
@testable import MediaDRMWebVTT

/// The strict WebVTT reader (W3C WebVTT §4): what it keeps, what it refuses and where.
@Suite struct WebVTTFileTests {
    static let sample = """
        WEBVTT - a talk
        Kind: captions

        STYLE
        ::cue { color: yellow }

        NOTE written by hand

        intro
        00:00.500 --> 00:02.000 align:start line:0
        Hello,
        world.

        00:01:59.999 --> 01:00:00.000
        <v Ann>Later</v>

        """

    @Test func readsEveryPart() throws {
        let file = try WebVTTFile(parsing: Array(Self.sample.utf8))
        #expect(file.signatureText == "- a talk")
        #expect(file.headerLines == ["Kind: captions"])
        #expect(file.preambleBlocks == ["STYLE\n::cue { color: yellow }"])
        #expect(file.cues == [
            WebVTTCue(identifier: "intro", start: 500, end: 2000, settings: "align:start line:0", text: "Hello,\nworld."),
            WebVTTCue(start: 119_999, end: 3_600_000, text: "<v Ann>Later</v>"),
        ])
        // Written and read again: the same file.
        let again = try WebVTTFile(parsing: Array(file.serialized().utf8))
        #expect(again == file)
    }

    @Test func lineEndingsAndBOM() throws {
        let mixed = "\u{FEFF}WEBVTT\r\n\r\n00:00.000 --> 00:01.000\r\nA\rB\r\n\n00:01.000 --> 00:02.000\nC"
        let file = try WebVTTFile(parsing: Array(mixed.utf8))
        #expect(file.cues.map(\.text) == ["A\nB", "C"])
        #expect(throws: WebVTTError(.invalidBlock, "")) { try WebVTTFile(parsing: Array("WEBVTT\n\n00:00.000 --> 00:01.000\nA\n\nB\n".utf8)) }
    }

    @Test func timestamps() {
        #expect(WebVTTTimestamp.parse("00:00.000") == 0)
        #expect(WebVTTTimestamp.parse("01:02:03.004") == 3_723_004)
        #expect(WebVTTTimestamp.parse("100:00:00.000") == 360_000_000)
        for bad in ["0:00.000", "00:60.000", "60:00.000", "00:00.00", "00:00,000", "00:00.0000", "00:00:00:00.000",
                    "1:00:00.000", "-0:00.000", "00:0a.000", "", ":", "00:00.", "9999999:00:00.000"] {
            #expect(WebVTTTimestamp.parse(bad) == nil, "\(bad)")
        }
        #expect(WebVTTTimestamp.format(3_723_004) == "01:02:03.004")
        #expect(WebVTTTimestamp.format(0) == "00:00:00.000")
    }

    @Test func refusals() {
        func refused(_ text: String, _ code: WebVTTError.Code, line: Int?, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try WebVTTFile(parsing: Array(text.utf8))
                Issue.record("parsed; expected \(code)", sourceLocation: sourceLocation)
            } catch {
                #expect(error.code == code, "\(error.reason)", sourceLocation: sourceLocation)
                #expect(error.line == line, "\(error.reason)", sourceLocation: sourceLocation)
            }
        }
        refused("", .notWebVTT, line: 1)
        refused("WEBVT\n", .notWebVTT, line: 1)
        refused("WEBVTTX\n", .notWebVTT, line: 1)
        refused("WEBVTT\n00:00.000 --> 00:01.000\nA\n", .invalidBlock, line: 2)
        refused("WEBVTT\n\n00:00.000 -> 00:01.000\nA\n", .invalidBlock, line: 3)
        refused("WEBVTT\n\n00:00.000-->00:01.000\nA\n", .invalidTiming, line: 3)
        refused("WEBVTT\n\n00:00.000 --> 00:01\nA\n", .invalidTiming, line: 3)
        refused("WEBVTT\n\nid\n0:00.000 --> 00:01.000\nA\n", .invalidTiming, line: 4)
        refused("WEBVTT\n\n00:02.000 --> 00:01.000\nA\n", .outOfOrder, line: 3)
        refused("WEBVTT\n\n00:01.000 --> 00:01.000\nA\n", .outOfOrder, line: 3)
        refused("WEBVTT\n\n00:02.000 --> 00:03.000\nA\n\n00:01.000 --> 00:04.000\nB\n", .outOfOrder, line: 6)
        refused("WEBVTT\n\n00:00.000 --> 00:01.000\nA\n\nSTYLE\n::cue {}\n", .invalidBlock, line: 6)
        refused("WEBVTT\n\nNOTE a --> b\n", .invalidBlock, line: 3)
        refused("WEBVTT\n\n00:00.000 --> 00:01.000 --> 00:02.000\nA\n", .invalidTiming, line: 3)
        refused("WEBVTT\n\n 00:00.000 --> 00:01.000\nA\n", .invalidTiming, line: 3)
        refused("WEBVTT\n\u{0}\n", .notWebVTT, line: nil)
        #expect(throws: WebVTTError(.notWebVTT, "")) { try WebVTTFile(parsing: [0x57, 0x45, 0x42, 0x56, 0x54, 0x54, 0xFF]) }
    }

    @Test func limitsComeFirst() {
        let limits = WebVTTLimits(maximumBytes: 64, maximumCues: 2, maximumLineBytes: 40)
        #expect(throws: WebVTTError(.limitExceeded, "")) {
            try WebVTTFile(parsing: Array(repeating: 0x41, count: 65), limits: limits)
        }
        #expect(throws: WebVTTError(.limitExceeded, "")) {
            try WebVTTFile(parsing: Array(("WEBVTT\n\n" + String(repeating: "x", count: 41)).utf8), limits: limits)
        }
        let three = "WEBVTT\n\n00:00.000 --> 00:01.000\n\n00:01.000 --> 00:02.000\n\n00:02.000 --> 00:03.000\n"
        #expect(throws: WebVTTError(.limitExceeded, "")) {
            try WebVTTFile(parsing: Array(three.utf8), limits: WebVTTLimits(maximumCues: 2))
        }
    }

    /// Every prefix of a valid file either parses (a cut between blocks or lines) or fails with a
    /// typed error; never a trap.
    @Test func everyPrefix() {
        let bytes = Array(Self.sample.utf8)
        for length in 0 ... bytes.count {
            _ = try? WebVTTFile(parsing: bytes.prefix(length))
        }
    }
}
