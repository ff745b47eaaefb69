import MediaDRMMP4

/// The `cbcs` subsample map of HEVC samples (ISO/IEC 23001-7 §10.4 for HEVC video): every
/// non-VCL NAL unit is clear; each VCL NAL unit is clear through its length prefix, its two-byte
/// NAL unit header and its slice segment header (which ends byte-aligned, emulation prevention
/// bytes inside it counted), and the rest of it, the slice segment data, is protected. As for
/// H.264, protected sizes are not rounded to 16: under the pattern the partial block at the end
/// stays clear anyway.
///
/// In-band VPS, SPS and PPS NAL units (`hev1`) update the parameter sets before the slices after
/// them are read.
public struct HEVCSubsampleGenerator: Sendable {
    public private(set) var parameterSets: HEVC.ParameterSets
    public let nalUnitLengthSize: Int

    /// `nalUnitLengthSize` is 1, 2 or 4.
    public init(parameterSets: HEVC.ParameterSets, nalUnitLengthSize: Int) throws(CENCError) {
        guard [1, 2, 4].contains(nalUnitLengthSize) else {
            throw CENCError(.unsupported, "NAL unit length size \(nalUnitLengthSize); only 1, 2 and 4 are handled")
        }
        self.parameterSets = parameterSets
        self.nalUnitLengthSize = nalUnitLengthSize
    }

    /// From a track's `hvcC`: its parameter sets and NAL unit length size.
    public init(configuration: HEVCConfigurationBox) throws(CENCError) {
        try self.init(parameterSets: HEVC.ParameterSets(configuration: configuration),
                      nalUnitLengthSize: configuration.nalUnitLengthSize)
    }

    /// The subsample map of one sample; their sizes add up to `sample.count`.
    public mutating func subsamples(for sample: [UInt8]) throws(CENCError) -> [CENCSubsample] {
        var accumulator = SubsampleAccumulator()
        for nal in try HEVC.NALUnit.split(sample, lengthSize: nalUnitLengthSize) {
            let bytes = sample[nal.range]
            let prefix = nal.range.lowerBound - nal.prefixOffset
            if nal.isVideoCodingLayer {
                let clear = min(try parameterSets.sliceSegmentHeader(of: bytes).clearByteCount, bytes.count)
                try accumulator.add(clear: prefix + clear, protected: bytes.count - clear)
            } else {
                try parameterSets.update(with: bytes)
                try accumulator.add(clear: prefix + bytes.count, protected: 0)
            }
        }
        return accumulator.finish()
    }

    /// The slice segment headers of one sample, in order (in-band parameter sets applied as they come).
    public mutating func sliceSegmentHeaders(in sample: [UInt8]) throws(CENCError) -> [HEVC.SliceSegmentHeader] {
        var headers: [HEVC.SliceSegmentHeader] = []
        for nal in try HEVC.NALUnit.split(sample, lengthSize: nalUnitLengthSize) {
            let bytes = sample[nal.range]
            if nal.isVideoCodingLayer {
                headers.append(try parameterSets.sliceSegmentHeader(of: bytes))
            } else {
                try parameterSets.update(with: bytes)
            }
        }
        return headers
    }
}
