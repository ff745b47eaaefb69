// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCENC
import MediaDRMMP4

/// One sample of a fragment as `trun` and `senc` describe it.
public struct SegmentSample: Sendable, Equatable {
    public var size: UInt32
    public var duration: UInt32
    public var isSync: Bool
    /// Composition offset as written (video); nil for audio.
    public var compositionOffset: Int64?
    /// The cbcs subsample map (video); empty for audio (whole-sample protection).
    public var subsamples: [CENCSubsample]

    public init(size: UInt32, duration: UInt32, isSync: Bool, compositionOffset: Int64?, subsamples: [CENCSubsample]) {
        self.size = size
        self.duration = duration
        self.isSync = isSync
        self.compositionOffset = compositionOffset
        self.subsamples = subsamples
    }
}

/// The `moof` and `mdat` header of one fps-v2 media segment (§8.1 #10, §8.2 #10–#11). The
/// samples follow the returned bytes in the same order.
///
/// - video: `tfhd` (default-base-is-moof), `tfdt` v1, `trun` with durations, sizes, flags and
///   composition offsets (version 1 when one is negative), `senc` with subsamples and no IVs,
///   `saiz` and `saio` pointing at the `senc` entries.
/// - audio: `tfhd`, `tfdt`, `trun` with durations and sizes, and a `senc` version 0 with flags 0
///   and one empty entry per sample; no `saiz`, no `saio`.
public enum MediaSegment {
    static let syncFlags: UInt32 = 0x0200_0000
    static let nonSyncFlags: UInt32 = 0x0101_0000

    /// - Parameters:
    ///   - protected: false writes a clear fragment (tdf-hls): no `senc`, `saiz` or `saio`.
    ///   - sharedDuration: when every sample has the same duration, write it once as the `tfhd`
    ///     default instead of in each `trun` entry (the cmaf profile, as Shaka Packager does: 4
    ///     bytes a sample less, about 1.5 % of an AAC stream). fps-v2 keeps per-sample durations.
    public static func header(sequenceNumber: UInt32, decodeTime: UInt64, samples: [SegmentSample],
                              isVideo: Bool, protected: Bool = true, sharedDuration: Bool = false) throws(PackagerError) -> [UInt8] {
        let payload = samples.reduce(UInt64(0)) { $0 + UInt64($1.size) }
        let defaultDuration = sharedDuration && samples.allSatisfy { $0.duration == samples.first?.duration } ? samples.first?.duration : nil
        let runSamples = samples.map { s in
            TrackRunBox.Sample(sampleDuration: defaultDuration == nil ? s.duration : nil, sampleSize: s.size,
                               sampleFlags: isVideo ? (s.isSync ? syncFlags : nonSyncFlags) : nil,
                               sampleCompositionTimeOffset: isVideo ? (s.compositionOffset ?? 0) : nil)
        }
        let senc = SampleEncryptionBox(perSampleIVSize: 0, usesSubsamples: isVideo,
                                       samples: samples.map { SampleEncryptionBox.Sample(subsamples: isVideo ? $0.subsamples : []) })
        let infoSizes = samples.map { UInt8(clamping: isVideo ? 2 + 6 * $0.subsamples.count : 0) }
        if protected, isVideo, let index = samples.firstIndex(where: { 2 + 6 * $0.subsamples.count > 255 }) {
            throw PackagerError(.limitExceeded, "video sample \(index + 1) of segment \(sequenceNumber - 1) needs a senc entry over 255 bytes (more than 42 NAL units)")
        }
        var tfhd = TrackFragmentHeaderBox(trackID: InitSegment.trackID, defaultBaseIsMoof: true)
        tfhd.defaultSampleDuration = defaultDuration
        let tfdt = TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: decodeTime, version: 1)

        func build(dataOffset: Int32, sencOffset: UInt64) -> MovieFragmentBox {
            var traf = TrackFragmentBox()
            traf.children.append(tfhd)
            traf.children.append(tfdt)
            traf.children.append(TrackRunBox(dataOffset: dataOffset, samples: runSamples))
            guard protected else {
                var moof = MovieFragmentBox()
                moof.children.append(MovieFragmentHeaderBox(sequenceNumber: sequenceNumber))
                moof.children.append(traf)
                return moof
            }
            traf.children.append(senc)
            if isVideo {
                let saiz: SampleAuxiliaryInformationSizesBox
                if let first = infoSizes.first, infoSizes.allSatisfy({ $0 == first }), first != 0 {
                    saiz = SampleAuxiliaryInformationSizesBox(defaultSampleInfoSize: first, sampleCount: UInt32(infoSizes.count))
                } else {
                    saiz = SampleAuxiliaryInformationSizesBox(sampleInfoSizes: infoSizes)
                }
                traf.children.append(saiz)
                traf.children.append(SampleAuxiliaryInformationOffsetsBox(offsets: [sencOffset]))
            }
            var moof = MovieFragmentBox()
            moof.children.append(MovieFragmentHeaderBox(sequenceNumber: sequenceNumber))
            moof.children.append(traf)
            return moof
        }

        // First pass fixes the sizes; the offsets do not change them (32-bit fields).
        let moofSize = try bytes(of: build(dataOffset: 0, sencOffset: 0)).count
        let mdatHeader: [UInt8]
        do { mdatHeader = try MediaDataBox.header(payloadSize: payload) } catch {
            throw PackagerError(.limitExceeded, "a media segment's 'mdat' could not be written")
        }
        guard let dataOffset = Int32(exactly: moofSize + mdatHeader.count) else {
            throw PackagerError(.limitExceeded, "a fragment header is too large")
        }
        let mfhdSize = try bytes(of: MovieFragmentHeaderBox(sequenceNumber: sequenceNumber)).count
        let before = try bytes(of: tfhd).count + bytes(of: tfdt).count
            + bytes(of: TrackRunBox(dataOffset: dataOffset, samples: runSamples)).count
        // moof header, mfhd, traf header, the boxes before senc, then senc's own header,
        // version/flags and sample_count.
        let sencEntries = UInt64(8 + mfhdSize + 8 + before + 8 + 4 + 4)
        let final = try bytes(of: build(dataOffset: dataOffset, sencOffset: sencEntries))
        guard final.count == moofSize else { throw PackagerError(.limitExceeded, "fragment header size changed while writing") }
        return final + mdatHeader
    }

    static func bytes(of box: some MP4Box) throws(PackagerError) -> [UInt8] {
        do { return try box.serializedBytes() } catch {
            throw PackagerError(.malformedInput, "a media segment could not be written: \(error.reason)")
        }
    }
}
