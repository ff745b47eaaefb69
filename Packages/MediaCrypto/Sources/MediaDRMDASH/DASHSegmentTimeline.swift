/// A `SegmentTimeline` (ISO/IEC 23009-1 §5.3.9.6): each segment's start and duration in the
/// timescale's units, a run of equal contiguous durations written as one `S` with `r` (repeats
/// after the first). The packager's cmaf MPD and the KAS's fps-v2 views write it.
public enum DASHSegmentTimeline {
    public static func element(_ segments: [(start: Int64, duration: Int64)]) -> MPDElement {
        MPDElement("SegmentTimeline", children: entries(segments))
    }

    /// The `S` elements of `segments`.
    public static func entries(_ segments: [(start: Int64, duration: Int64)]) -> [MPDElement] {
        var runs: [(start: Int64, duration: Int64, repeats: Int)] = []
        var expected: Int64?
        for segment in segments {
            if let last = runs.last, last.duration == segment.duration, expected == segment.start {
                runs[runs.count - 1].repeats += 1
            } else {
                runs.append((segment.start, segment.duration, 0))
            }
            expected = segment.start + segment.duration
        }
        return runs.map { run in
            MPDElement("S", [("t", String(run.start)), ("d", String(run.duration))] + (run.repeats > 0 ? [("r", String(run.repeats))] : []))
        }
    }
}
