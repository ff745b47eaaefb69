// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMMP4

/// The `cbcs` subsample map of H.264 samples (ISO/IEC 23001-7 §9.5 and §10.4; fps-v2 §8.1 #9):
/// every non-VCL NAL unit is clear; each slice NAL unit is clear through its length prefix, NAL
/// unit header and slice header (rounded up to a whole byte of the escaped NAL unit), and the
/// rest of it, the slice data, is protected. Protected sizes are not rounded to 16: under the
/// pattern the partial block at the end of each subsample stays clear anyway.
///
/// In-band SPS and PPS NAL units update the parameter sets before the slices after them are read.
public struct H264SubsampleGenerator: Sendable {
    public private(set) var parameterSets: H264.ParameterSets
    public let nalUnitLengthSize: Int

    /// `nalUnitLengthSize` is 1, 2 or 4.
    public init(parameterSets: H264.ParameterSets, nalUnitLengthSize: Int) throws(CENCError) {
        guard [1, 2, 4].contains(nalUnitLengthSize) else {
            throw CENCError(.unsupported, "NAL unit length size \(nalUnitLengthSize); only 1, 2 and 4 are handled")
        }
        self.parameterSets = parameterSets
        self.nalUnitLengthSize = nalUnitLengthSize
    }

    /// From a track's `avcC`: its parameter sets and NAL unit length size.
    public init(avcConfiguration: AVCConfigurationBox) throws(CENCError) {
        try self.init(parameterSets: H264.ParameterSets(avcConfiguration: avcConfiguration),
                      nalUnitLengthSize: avcConfiguration.nalUnitLengthSize)
    }

    /// The subsample map of one sample; their sizes add up to `sample.count`.
    public mutating func subsamples(for sample: [UInt8]) throws(CENCError) -> [CENCSubsample] {
        var accumulator = SubsampleAccumulator()
        for nal in try H264.NALUnit.split(sample, lengthSize: nalUnitLengthSize) {
            let bytes = sample[nal.range]
            let prefix = nal.range.lowerBound - nal.prefixOffset
            if nal.isVideoSlice {
                let header = try parameterSets.sliceHeader(of: bytes)
                let clear = min(header.clearByteCount, bytes.count)
                try accumulator.add(clear: prefix + clear, protected: bytes.count - clear)
            } else {
                try parameterSets.update(with: bytes)
                try accumulator.add(clear: prefix + bytes.count, protected: 0)
            }
        }
        return accumulator.finish()
    }

    /// The slice headers of one sample, in order (in-band parameter sets applied as they come).
    public mutating func sliceHeaders(in sample: [UInt8]) throws(CENCError) -> [H264.SliceHeader] {
        var headers: [H264.SliceHeader] = []
        for nal in try H264.NALUnit.split(sample, lengthSize: nalUnitLengthSize) {
            let bytes = sample[nal.range]
            if nal.isVideoSlice {
                headers.append(try parameterSets.sliceHeader(of: bytes))
            } else {
                try parameterSets.update(with: bytes)
            }
        }
        return headers
    }
}
