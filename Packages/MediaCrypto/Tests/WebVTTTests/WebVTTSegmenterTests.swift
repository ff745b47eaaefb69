import Testing
@testable import MediaDRMWebVTT

/// Cutting at segment boundaries, the timestamp map, and putting the segments back together.
@Suite struct WebVTTSegmenterTests {
    /// Boundaries at 0, 2, 4 and 6 s in a 90 kHz timescale.
    static let boundaries: [Int64] = [0, 180_000, 360_000, 540_000]
    static let file = WebVTTFile(preambleBlocks: ["STYLE\n::cue { color: lime }"], cues: [
        WebVTTCue(identifier: "a", start: 0, end: 1000, text: "inside the first"),
        WebVTTCue(start: 1500, end: 2000, text: "ends on the boundary"),
        WebVTTCue(start: 1800, end: 4500, settings: "line:0", text: "spans two boundaries"),
        WebVTTCue(start: 2000, end: 2500, text: "starts on the boundary"),
        WebVTTCue(start: 2000, end: 2500, text: "starts on the boundary"),
        WebVTTCue(start: 5900, end: 9000, text: "runs past the end"),
        WebVTTCue(start: 7000, end: 8000, text: "after the video"),
    ])

    @Test func cuesOverlappingEachSegment() throws {
        let cues = try WebVTTSegmenter.cues(of: Self.file, boundaries: Self.boundaries, timescale: 90_000)
        #expect(cues.map { $0.map(\.text) } == [
            ["inside the first", "ends on the boundary", "spans two boundaries"],
            ["spans two boundaries", "starts on the boundary", "starts on the boundary"],
            ["spans two boundaries", "runs past the end", "after the video"],
        ])
    }

    @Test func segmentsCarryTheMapAndMergeBackToTheSource() throws {
        let map = WebVTTTimestampMap(mediaTime: 0, timescale: 90_000)
        #expect(map.headerLine == "X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000")
        let segments = try WebVTTSegmenter.segments(of: Self.file, boundaries: Self.boundaries, timescale: 90_000, map: map)
        #expect(segments.count == 3)
        let parsed = try segments.map { bytes throws(WebVTTError) in try WebVTTFile(parsing: bytes) }
        for segment in parsed {
            #expect(segment.headerLines == [map.headerLine])
            #expect(segment.preambleBlocks == Self.file.preambleBlocks)
        }
        #expect(WebVTTReassembler.cues(of: parsed) == Self.file.cues)
        #expect(WebVTTReassembler.file(of: parsed).cues == Self.file.cues)
    }

    @Test func aMapMovesTheCuesOntoTheMediaTimeline() throws {
        let map = WebVTTTimestampMap(mpegts: 900_000, local: 0)  // cue time 0 is media time 10 s
        let segment = try WebVTTFile(parsing: Array(WebVTTFile(cues: [WebVTTCue(start: 0, end: 1000, text: "x")])
            .serialized(headerLines: [map.headerLine]).utf8))
        #expect(WebVTTReassembler.cues(of: [segment]) == [WebVTTCue(start: 10_000, end: 11_000, text: "x")])
    }

    @Test func timestampMapLines() {
        #expect(WebVTTTimestampMap(headerLine: "X-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000") == WebVTTTimestampMap(mpegts: 900_000, local: 0))
        #expect(WebVTTTimestampMap(headerLine: "X-TIMESTAMP-MAP=LOCAL:00:00:01.000,MPEGTS:0") == WebVTTTimestampMap(mpegts: 0, local: 1000))
        for bad in ["X-TIMESTAMP-MAP=MPEGTS:x,LOCAL:00:00:00.000", "X-TIMESTAMP-MAP=MPEGTS:1", "X-TIMESTAMP-MAP=LOCAL:00:00.000",
                    "X-TIMESTAMP-MAP=MPEGTS:99999999999,LOCAL:00:00:00.000", "X-TIMESTAMP-MAP=MPEGTS:1,LOCAL:00:00:00.000,X:1", "Kind: x"] {
            #expect(WebVTTTimestampMap(headerLine: bad) == nil, "\(bad)")
        }
        #expect(WebVTTTimestampMap(mediaTime: 48_000, timescale: 48_000).mpegts == 90_000)
        #expect(WebVTTTimestampMap(mediaTime: 1001, timescale: 30_000).mpegts == 3003)
    }

    @Test func boundariesMustAscend() {
        #expect(throws: WebVTTError(.invalidTiming, "")) { try WebVTTSegmenter.cues(of: Self.file, boundaries: [0], timescale: 1) }
        #expect(throws: WebVTTError(.invalidTiming, "")) { try WebVTTSegmenter.cues(of: Self.file, boundaries: [0, 5, 5], timescale: 1) }
        #expect(throws: WebVTTError(.invalidTiming, "")) { try WebVTTSegmenter.cues(of: Self.file, boundaries: [0, 5], timescale: 0) }
    }
}
