/// Cuts a WebVTT file at the video's segment boundaries into one WebVTT document per media
/// segment (RFC 8216 §3.5). A cue belongs to every segment its time range overlaps, so a cue
/// that spans a boundary appears in both segments (the HLS convention: a player that joins at
/// either segment shows it); cues keep their own times, and every segment carries the same
/// `X-TIMESTAMP-MAP` and the file's STYLE and REGION blocks. Cues after the last boundary go to
/// the last segment, so none is lost.
public enum WebVTTSegmenter {
    /// - Parameters:
    ///   - boundaries: the segment boundaries in `timescale` units: segment N covers
    ///     `boundaries[N] ..< boundaries[N + 1]` (at least two, ascending).
    /// - Returns: the cues of each segment, in order.
    public static func cues(of file: WebVTTFile, boundaries: [Int64], timescale: UInt32) throws(WebVTTError) -> [[WebVTTCue]] {
        guard boundaries.count >= 2, timescale > 0, zip(boundaries, boundaries.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw WebVTTError(.invalidTiming, "segment boundaries must be at least two ascending times")
        }
        let ts = Int64(timescale)
        // Compared exactly, in full width: cue milliseconds times the timescale against
        // boundary units times 1000.
        func scaled(_ value: Int64, _ factor: Int64) -> (Int64, UInt64) {
            let product = value.multipliedFullWidth(by: factor)
            return (product.high, product.low)
        }
        func before(_ ms: Int64, _ bound: Int64) -> Bool { scaled(ms, ts) < scaled(bound, 1000) }
        func after(_ ms: Int64, _ bound: Int64) -> Bool { scaled(ms, ts) > scaled(bound, 1000) }
        let last = boundaries.count - 2
        return (0 ... last).map { n in
            file.cues.filter { cue in
                (n == last || before(cue.start, boundaries[n + 1])) && (n == 0 || after(cue.end, boundaries[n]))
            }
        }
    }

    /// Each segment as a WebVTT document with `map` as its `X-TIMESTAMP-MAP`, as UTF-8 bytes.
    public static func segments(of file: WebVTTFile, boundaries: [Int64], timescale: UInt32,
                                map: WebVTTTimestampMap) throws(WebVTTError) -> [[UInt8]] {
        let header = file.headerLines.filter { WebVTTTimestampMap(headerLine: $0) == nil } + [map.headerLine]
        return try cues(of: file, boundaries: boundaries, timescale: timescale).map { cues in
            Array(file.serialized(headerLines: header, cues: cues).utf8)
        }
    }
}
