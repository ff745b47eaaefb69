/// Puts the segments of a subtitle rendition back together: their cues in order, each cue that
/// a segment repeats from the one before it (a cue spanning their boundary) taken once. Cue
/// times are moved by each segment's `X-TIMESTAMP-MAP` onto the media timeline the clear output
/// starts at (`LOCAL` is subtracted, `MPEGTS` added).
public enum WebVTTReassembler {
    public static func cues(of segments: [WebVTTFile]) -> [WebVTTCue] {
        var merged: [WebVTTCue] = []
        var previous: [WebVTTCue: Int] = [:]
        for segment in segments {
            let shift = segment.headerLines.lazy.compactMap(WebVTTTimestampMap.init(headerLine:)).first
                .map { $0.mpegts / 90 - $0.local } ?? 0
            var repeats = previous
            var current: [WebVTTCue: Int] = [:]
            for var cue in segment.cues {
                cue.start += shift
                cue.end += shift
                current[cue, default: 0] += 1
                if let left = repeats[cue], left > 0 {
                    repeats[cue] = left - 1
                    continue
                }
                merged.append(cue)
            }
            previous = current
        }
        return merged
    }

    /// The merged cues as one WebVTT file (the first segment's STYLE and REGION blocks kept).
    public static func file(of segments: [WebVTTFile]) -> WebVTTFile {
        WebVTTFile(signatureText: "", headerLines: [], preambleBlocks: segments.first?.preambleBlocks ?? [], cues: cues(of: segments))
    }
}
