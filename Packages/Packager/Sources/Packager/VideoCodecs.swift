import Foundation
import MediaDRMMP4

/// The RFC 6381 `CODECS` value of a video track, as a master playlist's `EXT-X-STREAM-INF`
/// lists it (RFC 8216 §4.3.4.2).
public enum VideoCodecs {
    /// H.264: `avc1.` and the avcC's profile, compatibility and level bytes as six hex digits
    /// (RFC 6381 §3.3). HEVC: the `hvcC` record's profile, tier, level and constraint fields
    /// (ISO/IEC 14496-15 Annex E.3), e.g. `hvc1.1.6.L93.B0`, under the track's entry type.
    public static func string(_ track: SourceTrack) throws(PackagerError) -> String {
        if track.isHEVC, let hvcC = track.hevcConfiguration {
            return hvcC.codecsString(sampleEntry: track.format)
        }
        guard let avcC = track.avcConfiguration else {
            throw PackagerError(.unsupportedInput, "\(track.name) has neither avcC nor hvcC")
        }
        return "avc1." + [avcC.profileIndication, avcC.profileCompatibility, avcC.levelIndication]
            .map { String(format: "%02X", $0) }.joined()
    }
}
