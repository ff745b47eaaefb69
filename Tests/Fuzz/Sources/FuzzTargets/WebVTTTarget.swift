import MediaDRMWebVTT

/// WebVTT as the packager reads a `--subtitles` file and the player reads a segment: the strict
/// parser; what it accepts must write and read back to the same file, and cut at fixed
/// boundaries (0, 2, 4 s and past the last cue) then merged, give back exactly its cues.
enum WebVTTTarget {
    static let target = FuzzTarget("webvtt", "strict WebVTT parse, write round trip, segment and merge") { input throws(FuzzViolation) in
        guard let file = try? WebVTTFile(parsing: input) else { return .refused }
        let reread: WebVTTFile
        do throws(WebVTTError) { reread = try WebVTTFile(parsing: Array(file.serialized().utf8)) } catch {
            throw FuzzViolation("webvtt", "an accepted file writes to text that does not parse: \(error.reason)")
        }
        guard reread.cues == file.cues, reread.preambleBlocks == file.preambleBlocks else {
            throw FuzzViolation("webvtt", "the cues changed in a write and read")
        }
        let last = max(file.cues.map(\.end).max() ?? 0, 4000) + 1
        let map = WebVTTTimestampMap(mpegts: 0, local: 0)
        let segments: [[UInt8]]
        do throws(WebVTTError) { segments = try WebVTTSegmenter.segments(of: file, boundaries: [0, 2000, 4000, last], timescale: 1000, map: map) } catch {
            throw FuzzViolation("webvtt", "ascending boundaries were refused: \(error.reason)")
        }
        var parsed: [WebVTTFile] = []
        for segment in segments {
            do throws(WebVTTError) { parsed.append(try WebVTTFile(parsing: segment)) } catch {
                throw FuzzViolation("webvtt", "a segment does not parse: \(error.reason)")
            }
        }
        guard WebVTTReassembler.cues(of: parsed) == file.cues else {
            throw FuzzViolation("webvtt", "the merged segments do not give back the file's cues")
        }
        return .accepted
    }
}
