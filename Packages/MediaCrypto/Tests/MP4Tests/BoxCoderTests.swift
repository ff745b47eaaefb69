import Foundation
import Testing
@testable import MediaDRMMP4

@Suite struct BoxCoderTests {
    @Test func unknownBoxKeptByteForByte() throws {
        let bytes = box("free", [1, 2, 3]) + box("uuid", Array(0 ..< 16) + [9, 9])
        let boxes = try BoxParser.parse(bytes)
        #expect(boxes.count == 2)
        #expect((boxes[0] as? UnknownBox) == UnknownBox(type: "free", payload: [1, 2, 3]))
        #expect(try BoxParser.serialize(boxes) == bytes)
        try roundTrip(UnknownBox(type: "udta", payload: box("xyz ", [1])))
    }

    @Test func largeSizeIsReadAndWrittenCompactly() throws {
        let large = be32(1) + Array("free".utf8) + [0, 0, 0, 0] + be32(20) + [7, 7, 7, 7]
        let parsed = try UnknownBox(parsing: large)
        #expect(parsed.payload == [7, 7, 7, 7])
        #expect(try parsed.serializedBytes() == box("free", [7, 7, 7, 7]))
    }

    @Test func sizeZeroRunsToTheEnd() throws {
        let bytes = box("free", []) + be32(0) + Array("skip".utf8) + [1, 2, 3]
        let boxes = try BoxParser.parse(bytes)
        #expect((boxes[1] as? UnknownBox)?.payload == [1, 2, 3])
        // Written back with its real size.
        #expect(try BoxParser.serialize(boxes) == box("free", []) + box("skip", [1, 2, 3]))
    }

    @Test func mdatHeaderUsesLargeSizeOnlyWhenNeeded() throws {
        #expect(try MediaDataBox.header(payloadSize: 100) == be32(108) + Array("mdat".utf8))
        let big: UInt64 = 5 << 30
        let header = try MediaDataBox.header(payloadSize: big)
        #expect(header.count == 16)
        #expect(Array(header[0 ..< 8]) == be32(1) + Array("mdat".utf8))
        #expect(Array(header[8 ..< 16]) == be32(UInt32((big + 16) >> 32)) + be32(UInt32((big + 16) & 0xFFFF_FFFF)))
    }

    @Test func mdatPayloadIsReferencedNotLoaded() throws {
        let bytes = box("ftyp", Array("isom".utf8) + be32(0)) + box("mdat", [1, 2, 3, 4, 5])
        let boxes = try BoxParser.parse(bytes, baseOffset: 1000)
        let mdat = try #require(boxes[1] as? MediaDataBox)
        #expect(mdat.payloadSize == 5)
        #expect(mdat.payloadOffset == 1000 + 16 + 8)
        #expect(try mdat.serializedBytes() == be32(13) + Array("mdat".utf8))
    }

    @Test func sizeSmallerThanHeaderIsRefused() {
        expectFailure(be32(4) + Array("free".utf8), as: UnknownBox.self, .invalidSize)
        expectFailure(be32(1) + Array("free".utf8) + [0, 0, 0, 0, 0, 0, 0, 12], as: UnknownBox.self, .invalidSize)
    }

    @Test func childPastParentEndIsRefused() throws {
        // A moov whose mvhd claims 4 bytes more than the moov holds.
        var mvhd = try MovieHeaderBox().serializedBytes()
        mvhd.replaceSubrange(0 ..< 4, with: be32(UInt32(mvhd.count + 4)))
        expectFailure(box("moov", mvhd), as: MovieBox.self, .invalidSize)
        // Trailing bytes too few for a child header.
        let good = try MovieHeaderBox().serializedBytes()
        expectFailure(box("moov", good + [0, 0, 0]), as: MovieBox.self, .invalidSize)
        #expect(try MovieBox(parsing: box("moov", good)).movieHeader == MovieHeaderBox())
    }

    @Test func boxWithUndescribedTrailingBytesIsRefused() throws {
        let mfhd = try MovieFragmentHeaderBox(sequenceNumber: 3).serializedBytes()
        var longer = mfhd + [0]
        longer.replaceSubrange(0 ..< 4, with: be32(UInt32(longer.count)))
        expectFailure(longer, as: MovieFragmentHeaderBox.self, .invalidSize)
        expectFailure(mfhd + [0], as: MovieFragmentHeaderBox.self, .invalidSize)
    }

    @Test func unsupportedVersionIsRefused() {
        expectFailure(fullBox("mfhd", version: 1, flags: 0, be32(1)), as: MovieFragmentHeaderBox.self, .unsupportedVersion)
        expectFailure(fullBox("mvhd", version: 2, flags: 0, Array(repeating: 0, count: 96)), as: MovieHeaderBox.self,
                      .unsupportedVersion)
        var trun = TrackRunBox()
        trun.version = 2
        expectWriteFailure(trun, .unsupportedVersion)
    }

    @Test func wrongTypeIsRefused() throws {
        let mfhd = try MovieFragmentHeaderBox(sequenceNumber: 3).serializedBytes()
        expectFailure(mfhd, as: TrackFragmentHeaderBox.self, .invalidField)
    }

    @Test func hostileNestingIsRefused() throws {
        var nested = box("elst", [])
        for _ in 0 ..< 5000 { nested = box("edts", nested) }
        expectFailure(nested, as: EditBox.self, .tooDeep)
        var shallow = try EditListBox().serializedBytes()
        for _ in 0 ..< 10 { shallow = box("edts", shallow) }
        try readWrite(shallow, as: EditBox.self)
        expectFailure(shallow, as: EditBox.self, .tooDeep, options: DecodingOptions(maximumDepth: 5))
    }

    @Test func fourCCText() {
        #expect(FourCC(string: "moov") == "moov")
        #expect(FourCC(string: "moo") == nil)
        #expect(FourCC(rawValue: 0x0102_0304).description == "0x1020304")
        #expect(FourCC(string: "url ")?.description == "url ")
    }

    @Test func errorsCompareByCode() {
        #expect(MP4Error(.truncated, "a") == MP4Error(.truncated, "b"))
        #expect(MP4Error(.truncated, "a") != MP4Error(.invalidSize, "a"))
    }

    @Test(arguments: [(0, 1), (127, 1), (128, 2), (16383, 2), (16384, 3), (2_097_152, 4)])
    func descriptorLengthForms(length: Int, expectedBytes: Int) throws {
        let info = DecoderSpecificInfo(bytes: Array(repeating: 0xAB, count: length))
        var config = DecoderConfigDescriptor(bufferSizeDB: 0, maxBitrate: 0, avgBitrate: 0, decoderSpecificInfo: info)
        config.lengthFieldSize = 4
        let bytes = try ESDBox(descriptor: ESDescriptor(esID: 1, decoderConfig: config)).serializedBytes()
        let parsed = try readWrite(bytes, as: ESDBox.self)
        // Lengths grow to the form the body needs; a longer recorded form is kept.
        let decoded = parsed.descriptor.decoderConfig
        #expect(decoded.lengthFieldSize == 4)
        #expect(decoded.decoderSpecificInfo?.lengthFieldSize == expectedBytes)
        #expect(decoded.decoderSpecificInfo?.bytes == info.bytes)
        let tagIndex = 12 + 1 + parsed.descriptor.lengthFieldSize + 3 + 1 + 4 + 13
        #expect(bytes[tagIndex] == 5)
        #expect(bytes[tagIndex + expectedBytes] & 0x80 == 0)
    }

    @Test func descriptorLengthOfFiveBytesIsRefused() {
        let payload: [UInt8] = [0, 0, 0, 0, 3, 0x80, 0x80, 0x80, 0x80, 0x01, 0]
        expectFailure(box("esds", payload), as: ESDBox.self, .invalidField)
    }

    @Test func descriptorOverrunningItsParentIsRefused() {
        // ES_Descriptor length 100 inside an esds that holds 3 bytes after it.
        expectFailure(box("esds", [0, 0, 0, 0, 3, 100, 0, 1, 0]), as: ESDBox.self, .invalidSize)
    }

    @Test func countLargerThanBytesLeftIsRefusedBeforeAllocating() {
        let bigCount = be32(0xFFFF_FFFF)
        expectFailure(fullBox("stts", version: 0, flags: 0, bigCount + [0, 0, 0, 1]), as: TimeToSampleBox.self, .countTooLarge)
        expectFailure(fullBox("stco", version: 0, flags: 0, be32(2) + be32(1)), as: ChunkOffsetBox.self, .countTooLarge)
        expectFailure(fullBox("co64", version: 0, flags: 0, be32(1) + be32(1)), as: ChunkLargeOffsetBox.self, .countTooLarge)
        expectFailure(fullBox("stsz", version: 0, flags: 0, be32(0) + bigCount), as: SampleSizeBox.self, .countTooLarge)
        expectFailure(fullBox("stsc", version: 0, flags: 0, be32(1) + be32(1) + be32(1)), as: SampleToChunkBox.self,
                      .countTooLarge)
        expectFailure(fullBox("elst", version: 1, flags: 0, be32(1) + Array(repeating: 0, count: 12)), as: EditListBox.self,
                      .countTooLarge)
        expectFailure(fullBox("stsd", version: 0, flags: 0, be32(3) + box("free", [])), as: SampleDescriptionBox.self,
                      .countTooLarge)
        expectFailure(fullBox("dref", version: 0, flags: 0, be32(0x7FFF_FFFF)), as: DataReferenceBox.self, .countTooLarge)
        expectFailure(fullBox("saio", version: 0, flags: 0, bigCount), as: SampleAuxiliaryInformationOffsetsBox.self,
                      .countTooLarge)
        expectFailure(fullBox("pssh", version: 1, flags: 0, Array(repeating: 0, count: 16) + bigCount), as:
                      ProtectionSystemSpecificHeaderBox.self, .countTooLarge)
        expectFailure(fullBox("pssh", version: 0, flags: 0, Array(repeating: 0, count: 16) + be32(5) + [1]), as:
                      ProtectionSystemSpecificHeaderBox.self, .countTooLarge)
        expectFailure(fullBox("saiz", version: 0, flags: 0, [0] + be32(10) + [1, 2]), as:
                      SampleAuxiliaryInformationSizesBox.self, .truncated)
    }
}
