import Foundation
import Testing
@testable import MediaDRMCENC

@Suite("sequence parameter sets")
struct H264SequenceParameterSetTests {
    /// The stream's first SPS, and ffprobe's width, height, profile and level.
    static func firstSPS(_ spec: StreamSpec) throws -> (nal: [UInt8], probe: [String: String]) {
        let stream = try GeneratedStream(spec)
        defer { stream.remove() }
        let nal = try #require(stream.nalUnits.first { $0[0] & 0x1F == 7 })
        let probe = try run(ffprobePath, ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                          "stream=width,height,profile,level,sample_aspect_ratio",
                                          "-of", "default=nw=0", stream.file.path])
        var fields: [String: String] = [:]
        for line in String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return (nal, fields)
    }

    @Test(arguments: StreamSpec.all)
    func realStreamsMatchFFprobe(_ spec: StreamSpec) throws {
        try #require(haveFFmpeg)
        let (nal, probe) = try Self.firstSPS(spec)
        let sps = try H264.SequenceParameterSet(nalUnit: nal)
        #expect(String(sps.width) == probe["width"])
        #expect(String(sps.height) == probe["height"])
        #expect(String(sps.levelIDC) == probe["level"])
        let expectedProfile: [String: UInt8] = ["Constrained Baseline": 66, "Baseline": 66, "Main": 77, "High": 100,
                                                "High 10": 110, "High 4:2:2": 122, "High 4:4:4 Predictive": 244, "High 4:4:4 Intra": 244]
        #expect(expectedProfile[probe["profile"] ?? ""] == sps.profileIDC, "ffprobe profile \(probe["profile"] ?? "-")")
        #expect(sps.codecString.hasPrefix("avc1."))
        #expect(sps.codecString.count == 11)
        let dimensions = spec.size.split(separator: "x").compactMap { Int($0) }
        #expect([sps.width, sps.height] == dimensions)
        switch spec.pixelFormat {
        case "gray": #expect(sps.chromaFormatIDC == 0)
        case "yuv444p": #expect(sps.chromaFormatIDC == 3)
        case "yuv422p": #expect(sps.chromaFormatIDC == 2)
        case "yuv420p10le": #expect(sps.bitDepthLuma == 10)
        default: #expect(sps.chromaFormatIDC == 1)
        }
        if spec.x264Params?.contains("interlaced") == true { #expect(!sps.frameMacroblocksOnly) }
        #expect(sps.vui?.timeScale != nil)
    }

    @Test func oddResolutionCropping() throws {
        try #require(haveFFmpeg)
        let (nal, _) = try Self.firstSPS(StreamSpec(name: "odd", size: "130x74", frames: 1, profile: "baseline"))
        let sps = try H264.SequenceParameterSet(nalUnit: nal)
        #expect(sps.picWidthInMacroblocks == 9)
        #expect(sps.picHeightInMapUnits == 5)
        #expect(sps.frameCropRight == 7)
        #expect(sps.frameCropBottom == 3)
        #expect(sps.width == 130 && sps.height == 74)
        #expect(sps.profileIDC == 66)
        #expect(sps.codecString == String(format: "avc1.42%02X%02X", sps.constraintFlags, sps.levelIDC))
    }

    @Test(arguments: ["baseline-130x74-cavlc", "high444-cqm-jvt", "interlaced-mbaff", "high10"])
    func everyPrefixThrows(_ name: String) throws {
        try #require(haveFFmpeg)
        let spec = try #require(StreamSpec.all.first { $0.name == name })
        let (nal, _) = try Self.firstSPS(spec)
        _ = try H264.SequenceParameterSet(nalUnit: nal)
        for length in 0 ..< nal.count {
            expectCENCError(.truncated) { _ = try H264.SequenceParameterSet(nalUnit: nal[0 ..< length]) }
        }
    }

    static func craftedSPS(id: UInt64 = 0, profile: UInt64 = 100, chroma: UInt64 = 1, widthMinus1: UInt64 = 10,
                           maxRefFrames: UInt64 = 1, crop: (UInt64, UInt64)? = nil, leadingZeros: Bool = false) -> [UInt8] {
        var w = BitWriter()
        w.bits(profile, 8); w.bits(0, 8); w.bits(40, 8)
        if leadingZeros { w.bits(0, 40); w.bit(true); w.trailing(); return w.nalUnit(header: 0x67) }
        w.ue(id)
        if profile == 100 {
            w.ue(chroma)
            if chroma == 3 { w.flag(false) }
            w.ue(0); w.ue(0); w.flag(false); w.flag(false)
        }
        w.ue(0); w.ue(0); w.ue(0)  // frame_num 4 bits, poc type 0 with 4 bits
        w.ue(maxRefFrames); w.flag(false)
        w.ue(widthMinus1); w.ue(8)
        w.flag(true); w.flag(true)
        if let crop { w.flag(true); w.ue(crop.0); w.ue(0); w.ue(crop.1); w.ue(0) } else { w.flag(false) }
        w.flag(false)
        w.trailing()
        return w.nalUnit(header: 0x67)
    }

    @Test func craftedFieldsAndHostileValues() throws {
        let sps = try H264.SequenceParameterSet(nalUnit: Self.craftedSPS(id: 31, crop: (3, 2)))
        #expect(sps.id == 31)
        #expect(sps.width == 176 - 6 && sps.height == 144 - 4)
        #expect(sps.codecString == "avc1.640028")
        expectCENCError(.invalidValue) { _ = try H264.SequenceParameterSet(nalUnit: Self.craftedSPS(id: 32)) }
        expectCENCError(.invalidValue) { _ = try H264.SequenceParameterSet(nalUnit: Self.craftedSPS(chroma: 4)) }
        expectCENCError(.invalidValue) { _ = try H264.SequenceParameterSet(nalUnit: Self.craftedSPS(maxRefFrames: 17)) }
        expectCENCError(.invalidValue) { _ = try H264.SequenceParameterSet(nalUnit: Self.craftedSPS(widthMinus1: 5000)) }
        expectCENCError(.invalidValue) { _ = try H264.SequenceParameterSet(nalUnit: Self.craftedSPS(crop: (88, 0))) }
        expectCENCError(.invalidValue) { _ = try H264.SequenceParameterSet(nalUnit: Self.craftedSPS(leadingZeros: true)) }
        expectCENCError(.invalidNALUnit) { _ = try H264.SequenceParameterSet(nalUnit: [0x68, 0x42]) }
        var junk = Self.craftedSPS()
        junk.append(0x80)
        expectCENCError(.invalidValue) { _ = try H264.SequenceParameterSet(nalUnit: junk) }
    }
}
