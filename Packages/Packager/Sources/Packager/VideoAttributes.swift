import Foundation
import MediaDRMCENC
import MediaDRMHLS

/// What a master playlist says of a video rendition (RFC 8216 §4.3.4.2): CODECS from the
/// rendition's first sequence parameter set (RFC 6381 `avc1.PPCCLL`: profile_idc, the constraint
/// byte and level_idc, as the decoder reads them) or, for HEVC, from the `hvcC` record
/// (`hvc1.1.6.L93.B0`, ISO/IEC 14496-15 Annex E.3, whose fields every SPS was checked against),
/// RESOLUTION from the sample entry and FRAME-RATE from the sample count over the decode duration.
struct VideoAttributes: Sendable, Equatable {
    var codec: String
    var resolution: HLSResolution
    var frameRate: Double

    init(_ track: SourceTrack) throws(PackagerError) {
        let samples = track.samples
        let seconds = Double(samples.decodeEnd) / Double(track.timescale)
        try self.init(track, frameRate: seconds > 0 ? Double(samples.count) / seconds : 0)
    }

    /// With the frame rate measured elsewhere (a live track, whose `moov` lists no samples).
    init(_ track: SourceTrack, frameRate measured: Double) throws(PackagerError) {
        guard let entry = track.videoEntry else { throw PackagerError(.unsupportedInput, "\(track.name) has no sample entry") }
        if track.isHEVC, let hvcC = track.hevcConfiguration {
            codec = hvcC.codecsString(sampleEntry: track.format)
        } else {
            guard let avcC = track.avcConfiguration, let first = avcC.sequenceParameterSets.first else {
                throw PackagerError(.unsupportedInput, "\(track.name) has no avcC with a sequence parameter set")
            }
            do { codec = try H264.SequenceParameterSet(nalUnit: first).codecString } catch {
                throw PackagerError(.malformedInput, "\(track.name): the sequence parameter set is invalid: \(error.reason)")
            }
        }
        frameRate = measured.isFinite ? (measured * 1000).rounded() / 1000 : 0
        guard frameRate > 0, entry.width > 0, entry.height > 0 else {
            throw PackagerError(.malformedInput, "\(track.name) has no usable size or frame rate")
        }
        resolution = HLSResolution(width: Int(entry.width), height: Int(entry.height))
    }
}
