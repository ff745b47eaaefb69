/// `X-TIMESTAMP-MAP=MPEGTS:<90 kHz time>,LOCAL:<cue time>` (RFC 8216 §3.5): which cue time
/// of a WebVTT segment coincides with which media time of the other renditions, in 90 kHz
/// units (for fMP4 media, their presentation timeline: `tfdt` plus composition offsets).
public struct WebVTTTimestampMap: Sendable, Equatable {
    /// 90 kHz media time; an MPEG-2 timestamp is 33 bits.
    public var mpegts: Int64
    /// The cue time, milliseconds.
    public var local: Int64

    public static let maximumMPEGTS: Int64 = (1 << 33) - 1

    public init(mpegts: Int64, local: Int64) {
        self.mpegts = min(max(0, mpegts), Self.maximumMPEGTS)
        self.local = max(0, local)
    }

    /// Cue time `local` is media time `mediaTime` (in `timescale` units) of the other renditions.
    public init(mediaTime: Int64, timescale: UInt32, local: Int64 = 0) {
        let ts = Int64(max(timescale, 1))
        self.init(mpegts: mediaTime / ts * 90_000 + mediaTime % ts * 90_000 / ts, local: local)
    }

    /// The header line.
    public var headerLine: String { "X-TIMESTAMP-MAP=MPEGTS:\(mpegts),LOCAL:\(WebVTTTimestamp.format(local))" }

    /// Reads the header line back; nil when `line` is not one.
    public init?(headerLine line: String) {
        guard line.hasPrefix("X-TIMESTAMP-MAP=") else { return nil }
        var mpegts: Int64?, local: Int64?
        for field in line.dropFirst("X-TIMESTAMP-MAP=".count).split(separator: ",") {
            if field.hasPrefix("MPEGTS:") {
                let digits = field.dropFirst(7)
                guard !digits.isEmpty, digits.utf8.count <= 10, digits.utf8.allSatisfy({ (0x30 ... 0x39).contains($0) }) else { return nil }
                mpegts = Int64(digits)
            } else if field.hasPrefix("LOCAL:") {
                local = WebVTTTimestamp.parse(field.dropFirst(6))
            } else {
                return nil
            }
        }
        guard let mpegts, let local, mpegts <= Self.maximumMPEGTS else { return nil }
        self.init(mpegts: mpegts, local: local)
    }
}
