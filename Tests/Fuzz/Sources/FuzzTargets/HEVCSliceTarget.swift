import MediaDRMCENC
import MediaDRMMP4

/// HEVC slice segment headers and the `cbcs` subsample map, as the packager encrypts an
/// `hvc1`/`hev1` track. Two parts (`FuzzInput`): an `hvcC` record (the box payload) and one
/// length-prefixed sample. The record's VPS/SPS/PPS and the sample's in-band ones are taken in,
/// every VCL NAL unit's slice segment header is parsed (its clear prefix must lie inside the NAL
/// unit), and the sample's subsample map must cover it exactly.
enum HEVCSliceTarget {
    static let target = FuzzTarget("hevc-slice", "HEVC slice segment headers, full SPS/PPS, cbcs subsample map") { input throws(FuzzViolation) in
        guard let parts = FuzzInput.split(input, into: 2) else { return .refused }
        let size = UInt32(clamping: parts[0].count + 8)
        let box = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("hvcC".utf8) + parts[0]
        guard size == parts[0].count + 8, let record = try? HEVCConfigurationBox(parsing: box),
              var headers = try? HEVCSubsampleGenerator(configuration: record),
              var generator = try? HEVCSubsampleGenerator(configuration: record) else { return .refused }
        let sample = parts[1]
        guard let units = try? HEVC.NALUnit.split(sample, lengthSize: record.nalUnitLengthSize),
              let parsed = try? headers.sliceSegmentHeaders(in: sample) else { return .refused }
        for (unit, header) in zip(units.filter(\.isVideoCodingLayer), parsed) where header.clearByteCount > unit.range.count {
            throw FuzzViolation("hevc-slice", "a clear prefix of \(header.clearByteCount) bytes in a \(unit.range.count)-byte NAL unit")
        }
        guard let map = try? generator.subsamples(for: sample) else { return .refused }
        let covered = map.reduce(0) { $0 + Int($1.bytesOfClearData) + Int($1.bytesOfProtectedData) }
        guard covered == sample.count else {
            throw FuzzViolation("hevc-slice", "the subsample map covers \(covered) bytes of a \(sample.count)-byte sample")
        }
        return parsed.isEmpty ? .refused : .accepted
    }
}
