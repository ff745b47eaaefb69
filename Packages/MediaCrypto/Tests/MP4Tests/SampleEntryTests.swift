import Foundation
import Testing
@testable import MediaDRMMP4

@Suite struct SampleEntryTests {
    static let avcC = AVCConfigurationBox(profileIndication: 0x64, profileCompatibility: 0, levelIndication: 0x0A,
                                          sequenceParameterSets: [[0x67, 0x64, 0x00, 0x0A, 0xAC]], pictureParameterSets: [[0x68, 0xEE, 0x3C, 0xB0]],
                                          trailingBytes: [0xFD, 0xF8, 0xF8, 0x00])

    @Test func avcConfiguration() throws {
        let bytes = try roundTrip(Self.avcC)
        #expect(bytes == box("avcC", [1, 0x64, 0, 0x0A, 0xFF, 0xE1] + be16(5) + [0x67, 0x64, 0x00, 0x0A, 0xAC]
                                      + [1] + be16(4) + [0x68, 0xEE, 0x3C, 0xB0] + [0xFD, 0xF8, 0xF8, 0x00]))
        #expect(Self.avcC.nalUnitLengthSize == 4)
        checkEveryPrefix(of: bytes, as: AVCConfigurationBox.self)
        var two = Self.avcC
        two.lengthSizeMinusOne = 1
        two.trailingBytes = []
        two.sequenceParameterSets.append([0x67, 1])
        try roundTrip(two)
    }

    @Test func avcConfigurationMalformed() {
        expectFailure(box("avcC", [2, 0x64, 0, 0x0A, 0xFF, 0xE0, 0]), as: AVCConfigurationBox.self, .invalidField)
        expectFailure(box("avcC", [1, 0x64, 0, 0x0A, 0xFE, 0xE0, 0]), as: AVCConfigurationBox.self, .invalidField)
        // 31 SPS announced, 1 byte left.
        expectFailure(box("avcC", [1, 0x64, 0, 0x0A, 0xFF, 0xFF, 0]), as: AVCConfigurationBox.self, .countTooLarge)
        // An SPS longer than the box.
        expectFailure(box("avcC", [1, 0x64, 0, 0x0A, 0xFF, 0xE1, 0x00, 0x09, 0x67]), as: AVCConfigurationBox.self, .truncated)
        var tooMany = Self.avcC
        tooMany.sequenceParameterSets = Array(repeating: [0x67], count: 32)
        expectWriteFailure(tooMany, .invalidField)
        var longSPS = Self.avcC
        longSPS.sequenceParameterSets = [Array(repeating: 0, count: 70_000)]
        expectWriteFailure(longSPS, .invalidField)
    }

    @Test func visualSampleEntry() throws {
        var avc1 = VisualSampleEntry(width: 128, height: 72, children: [Self.avcC, UnknownBox(type: "pasp", payload: be32(1) + be32(1))])
        avc1.compressorName = [4] + Array("x264".utf8) + Array(repeating: 0, count: 27)
        let bytes = try roundTrip(avc1)
        #expect(bytes.count == 8 + 78 + (try Self.avcC.serializedBytes().count) + 16)
        #expect(Array(bytes[32 ..< 36]) == be16(128) + be16(72))
        #expect(try VisualSampleEntry(parsing: bytes).avcConfiguration == Self.avcC)
        checkEveryPrefix(of: bytes, as: VisualSampleEntry.self)
        var wrongName = avc1
        wrongName.compressorName = [1]
        expectWriteFailure(wrongName, .invalidField)
    }

    static let esds: ESDBox = {
        var config = DecoderConfigDescriptor(bufferSizeDB: 0, maxBitrate: 128_000, avgBitrate: 69_000,
                                             decoderSpecificInfo: DecoderSpecificInfo(bytes: [0x12, 0x10]))
        config.lengthFieldSize = 4
        var descriptor = ESDescriptor(esID: 2, decoderConfig: config)
        descriptor.lengthFieldSize = 4
        descriptor.decoderConfig.decoderSpecificInfo?.lengthFieldSize = 4
        descriptor.slConfig.lengthFieldSize = 4
        return ESDBox(descriptor: descriptor)
    }()

    @Test func elementaryStreamDescriptorAsFFmpegWritesIt() throws {
        // ffmpeg writes every descriptor length in the 4-byte form.
        let expected = fullBox("esds", version: 0, flags: 0,
                               [0x03, 0x80, 0x80, 0x80, 0x22] + be16(2) + [0x00]
                                   + [0x04, 0x80, 0x80, 0x80, 0x14, 0x40, 0x15, 0x00, 0x00, 0x00] + be32(128_000) + be32(69_000)
                                   + [0x05, 0x80, 0x80, 0x80, 0x02, 0x12, 0x10]
                                   + [0x06, 0x80, 0x80, 0x80, 0x01, 0x02])
        #expect(try roundTrip(Self.esds) == expected)
        let parsed = try ESDBox(parsing: expected)
        #expect(parsed.descriptor.decoderConfig.decoderSpecificInfo?.audioSpecificConfig == [0x12, 0x10])
        #expect(parsed.descriptor.decoderConfig.streamType == 5)
        checkEveryPrefix(of: expected, as: ESDBox.self)
    }

    @Test func elementaryStreamDescriptorOptionalFields() throws {
        var descriptor = ESDescriptor(esID: 1, decoderConfig: DecoderConfigDescriptor())
        descriptor.dependsOnESID = 7
        descriptor.url = Array("http://a".utf8)
        descriptor.ocrESID = 9
        descriptor.streamPriority = 31
        descriptor.trailingDescriptors = [0x0A, 0x01, 0x00]
        descriptor.decoderConfig.trailingDescriptors = [0x14, 0x01, 0x01]
        descriptor.slConfig.predefined = 0
        descriptor.slConfig.body = [1, 2, 3]
        let bytes = try roundTrip(ESDBox(descriptor: descriptor))
        #expect(bytes[12] == 3 && bytes[13] == UInt8(bytes.count - 14))
        descriptor.streamPriority = 32
        expectWriteFailure(ESDBox(descriptor: descriptor), .invalidField)
        // A descriptor with the wrong tag where DecoderConfigDescriptor must be.
        expectFailure(fullBox("esds", version: 0, flags: 0, [0x03, 0x05, 0, 1, 0, 0x07, 0x00]), as: ESDBox.self, .invalidField)
    }

    @Test func audioSampleEntry() throws {
        let mp4a = AudioSampleEntry(channelCount: 2, sampleRate: 44100, children: [Self.esds])
        let bytes = try roundTrip(mp4a)
        #expect(Array(bytes[8 ..< 36]) == [0, 0, 0, 0, 0, 0] + be16(1) + Array(repeating: 0, count: 8) + be16(2) + be16(16)
                                          + [0, 0, 0, 0] + be32(44100 << 16))
        #expect(try AudioSampleEntry(parsing: bytes).elementaryStreamDescriptor == Self.esds)
        #expect(mp4a.sampleRateHz == 44100)
        checkEveryPrefix(of: bytes, as: AudioSampleEntry.self)
        var quickTime = mp4a
        quickTime.soundVersion = 1
        quickTime.quickTimeExtension = Array(0 ..< 16)
        try roundTrip(quickTime)
        quickTime.soundVersion = 3
        expectWriteFailure(quickTime, .invalidField)
    }

    @Test func protectedEntriesNeedSinf() throws {
        let sinf = ProtectionBoxTests.sinf(format: "mp4a")
        let enca = AudioSampleEntry(format: "enca", channelCount: 1, sampleRate: 48000, children: [Self.esds, sinf])
        let bytes = try roundTrip(enca)
        #expect(try AudioSampleEntry(parsing: bytes).protectionSchemeInfo?.originalFormat?.dataFormat == "mp4a")
        expectWriteFailure(AudioSampleEntry(format: "enca", channelCount: 1, sampleRate: 48000, children: [Self.esds]), .missingBox)
        let encv = VisualSampleEntry(format: "encv", width: 16, height: 16, children: [Self.avcC, ProtectionBoxTests.sinf(format: "avc1")])
        try roundTrip(encv)
        expectWriteFailure(VisualSampleEntry(format: "encv", width: 16, height: 16, children: [Self.avcC]), .missingBox)
    }
}
