import Foundation
import MediaDRMHLS

/// One segment of a live media playlist, named by its media sequence number (RFC 8216 §6.3.2:
/// the first segment's number is `EXT-X-MEDIA-SEQUENCE`, each next one adds one).
struct LiveSegment: Equatable, Sendable {
    let sequence: Int
    let uri: String
    let duration: Double
    /// The `EXT-X-MAP` URI in force for this segment.
    let mapURI: String?
    let discontinuity: Bool
    /// `EXT-X-PROGRAM-DATE-TIME` as Unix seconds, when present and readable.
    let programDate: Double?

    /// The segments of `playlist`, numbered from its media sequence.
    static func listed(in playlist: HLSMediaPlaylist) -> [LiveSegment] {
        let first = playlist.mediaSequence ?? 0
        return playlist.segments.indices.map { index in
            let segment = playlist.segments[index]
            return LiveSegment(sequence: first + index, uri: segment.uri, duration: segment.duration,
                               mapURI: playlist.effectiveMap(forSegment: index)?.uri, discontinuity: segment.discontinuity,
                               programDate: segment.programDateTime.flatMap(programDate))
        }
    }

    /// RFC 8216 §4.3.2.6: an ISO 8601 date-time with a time zone, with or without fractional seconds.
    static func programDate(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
