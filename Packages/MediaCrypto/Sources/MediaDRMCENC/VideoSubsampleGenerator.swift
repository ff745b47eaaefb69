import MediaDRMMP4

/// The `cbcs` subsample map of a video track, for the codec its sample entry names: H.264
/// (`avc1` with `avcC`, `H264SubsampleGenerator`) or HEVC (`hvc1`/`hev1` with `hvcC`,
/// `HEVCSubsampleGenerator`). What the packager hands `CBCSSampleCipher` for each sample.
public enum VideoSubsampleGenerator: Sendable {
    case h264(H264SubsampleGenerator)
    case hevc(HEVCSubsampleGenerator)

    /// From a visual sample entry in the clear (its original format, not `encv`).
    public init(sampleEntry entry: VisualSampleEntry) throws(CENCError) {
        switch entry.format {
        case "avc1":
            guard let avcC = entry.avcConfiguration else { throw CENCError(.invalidValue, "an 'avc1' sample entry without 'avcC'") }
            self = .h264(try H264SubsampleGenerator(avcConfiguration: avcC))
        case "hvc1", "hev1":
            guard let hvcC = entry.hevcConfiguration else {
                throw CENCError(.invalidValue, "an '\(entry.format)' sample entry without 'hvcC'")
            }
            self = .hevc(try HEVCSubsampleGenerator(configuration: hvcC))
        default:
            throw CENCError(.unsupported, "sample entry '\(entry.format)'; cbcs video here is H.264 ('avc1') or HEVC ('hvc1', 'hev1')")
        }
    }

    /// The subsample map of one sample; their sizes add up to `sample.count`.
    public mutating func subsamples(for sample: [UInt8]) throws(CENCError) -> [CENCSubsample] {
        switch self {
        case .h264(var generator):
            defer { self = .h264(generator) }
            return try generator.subsamples(for: sample)
        case .hevc(var generator):
            defer { self = .hevc(generator) }
            return try generator.subsamples(for: sample)
        }
    }
}
