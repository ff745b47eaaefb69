import MediaDRMCENC
import MediaDRMMP4

/// HEVC as the packager reads an `hvc1`/`hev1` track. Two parts (`FuzzInput`): an `hvcC`
/// record (the box payload) and one length-prefixed sample. The record must survive a write and
/// read unchanged and give a CODECS string of at least four fields; its parameter sets and the
/// sample's in-band ones are parsed and checked against it, and the sample's first picture
/// classified.
enum HEVCTarget {
    static let target = FuzzTarget("hevc", "hvcC read/write round trip, CODECS string, VPS/SPS/PPS, sample analysis") { input throws(FuzzViolation) in
        guard let parts = FuzzInput.split(input, into: 2) else { return .refused }
        let size = UInt32(clamping: parts[0].count + 8)
        let box = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("hvcC".utf8) + parts[0]
        guard size == parts[0].count + 8, let record = try? HEVCConfigurationBox(parsing: box) else { return .refused }
        guard let written = try? record.serializedBytes() else { return .refused }
        guard (try? HEVCConfigurationBox(parsing: written)) == record else {
            throw FuzzViolation("hevc", "the hvcC record changed in a write and read")
        }
        let codecs = record.codecsString(sampleEntry: "hvc1")
        guard codecs.split(separator: ".").count >= 4, codecs.hasPrefix("hvc1.") else {
            throw FuzzViolation("hevc", "the CODECS string \(codecs) has fewer than four fields")
        }
        guard var analyzer = try? HEVCSampleAnalyzer(configuration: record) else { return .refused }
        guard let sample = try? analyzer.analyze(parts[1]) else { return .refused }
        if sample.startsIndependently, !sample.isRandomAccessPoint {
            throw FuzzViolation("hevc", "a sample starts independently without a random access picture")
        }
        return .accepted
    }
}
