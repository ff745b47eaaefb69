import Testing
@testable import MediaDRMCENC

@Suite("emulation prevention removal")
struct H264RBSPTests {
    @Test func removesEveryEmulationPreventionByte() {
        let escaped: [UInt8] = [0x11, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x03, 0x22]
        let rbsp = H264.RBSP(escaped: escaped[...])
        #expect(rbsp.bytes == [0x11, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x03, 0x22])
        #expect(rbsp.emulationPreventionOffsets == [3, 7, 10])
        // Each RBSP byte maps back to the escaped byte with the same value.
        for (index, byte) in rbsp.bytes.enumerated() {
            #expect(escaped[rbsp.escapedOffset(ofRBSPOffset: index)] == byte)
        }
        #expect(rbsp.escapedOffset(ofRBSPOffset: 3) == 4)
        #expect(rbsp.escapedOffset(ofRBSPOffset: 8) == 11)
        #expect(rbsp.escapedByteCount(coveringBits: 0) == 0)
        #expect(rbsp.escapedByteCount(coveringBits: 1) == 1)
        #expect(rbsp.escapedByteCount(coveringBits: 24) == 3)   // 11 00 00: the 03 after is not needed
        #expect(rbsp.escapedByteCount(coveringBits: 25) == 5)   // ... 03 01
        #expect(rbsp.escapedByteCount(coveringBits: 80) == 13)
    }

    @Test func aThreeWithoutTwoZerosStays() {
        let rbsp = H264.RBSP(escaped: [0x00, 0x03, 0x00, 0x03, 0x03][...])
        #expect(rbsp.bytes == [0x00, 0x03, 0x00, 0x03, 0x03])
        #expect(rbsp.emulationPreventionOffsets.isEmpty)
    }

    @Test func limitStopsEarly() {
        let escaped: [UInt8] = [0x00, 0x00, 0x03, 0x01, 0x02, 0x03, 0x04]
        let rbsp = H264.RBSP(escaped: escaped[...], limit: 3)
        #expect(rbsp.bytes == [0x00, 0x00, 0x01])
        #expect(rbsp.emulationPreventionOffsets == [2])
    }

    @Test func slicesKeepTheirOwnOffsets() {
        let nal: [UInt8] = [0x65, 0x00, 0x00, 0x03, 0x02]
        let rbsp = H264.RBSP(escaped: nal.dropFirst())
        #expect(rbsp.bytes == [0x00, 0x00, 0x02])
        #expect(rbsp.emulationPreventionOffsets == [2])
    }
}
