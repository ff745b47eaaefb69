import Testing
@testable import MediaDRMCENC

@Suite("exp-Golomb bit reader")
struct H264BitReaderTests {
    /// Table 9-2 of H.264: bit strings and their codeNum, and the se(v) mapping of Table 9-3.
    @Test(arguments: [
        ("1", 0, 0), ("010", 1, 1), ("011", 2, -1), ("00100", 3, 2), ("00101", 4, -2), ("00110", 5, 3),
        ("00111", 6, -3), ("0001000", 7, 4), ("0001111", 14, -7), ("000010000", 15, 8),
        ("00000000111111111", 510, -255),
    ])
    func knownCodes(_ bits: String, _ codeNum: Int, _ signed: Int) throws {
        var w = BitWriter()
        for character in bits { w.bit(character == "1") }
        var r = H264.BitReader(w.bytes)
        #expect(Int(try r.readUE()) == codeNum)
        #expect(r.bitPosition == bits.count)
        r = H264.BitReader(w.bytes)
        #expect(Int(try r.readSE()) == signed)
    }

    @Test func writerAndReaderAgreeOverManyValues() throws {
        var w = BitWriter()
        let values: [UInt64] = [0, 1, 2, 3, 7, 8, 100, 255, 256, 65535, 1 << 20, (1 << 31) - 1, (1 << 32) - 2]
        for value in values { w.ue(value) }
        let signed: [Int64] = [0, 1, -1, 2, -2, 127, -128, 1 << 30, -(1 << 30), (1 << 31) - 1, -((1 << 31) - 1)]
        for value in signed { w.se(value) }
        var r = H264.BitReader(w.bytes)
        for value in values { #expect(UInt64(try r.readUE()) == value) }
        for value in signed { #expect(Int64(try r.readSE()) == value) }
    }

    @Test func thirtyTwoLeadingZerosAreRefused() throws {
        // 2^32 - 1 needs 32 leading zeros: refused rather than wrapped.
        var w = BitWriter()
        w.bits(0, 32); w.bit(true); w.bits(0, 32)
        var r = H264.BitReader(w.bytes)
        expectCENCError(.invalidValue) { _ = try r.readUE() }
        var s = H264.BitReader(w.bytes)
        expectCENCError(.invalidValue) { _ = try s.readSE() }
        // Many more zeros than that, too.
        var long = H264.BitReader([UInt8](repeating: 0, count: 64) + [0xFF])
        expectCENCError(.invalidValue) { _ = try long.readUE() }
    }

    @Test func truncationIsTyped() throws {
        var w = BitWriter()
        w.ue(1000)
        for length in 0 ..< w.bytes.count {
            var r = H264.BitReader(Array(w.bytes[0 ..< length]))
            expectCENCError(.truncated) { _ = try r.readUE() }
        }
        var r = H264.BitReader([0xA5])
        #expect(try r.readBits(3) == 0b101)
        #expect(try r.readBits(5) == 0b00101)
        expectCENCError(.truncated) { _ = try r.readBits(1) }
        var wide = H264.BitReader([0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try wide.readBits(32) == UInt32.max)
        expectCENCError(.invalidValue) { _ = try wide.readBits(33) }
        var reader = H264.BitReader([0x0F])
        expectCENCError(.truncated) { try reader.skipBits(9) }
    }

    @Test func rangeChecksNameTheField() throws {
        var w = BitWriter()
        w.ue(32)
        var r = H264.BitReader(w.bytes)
        do throws(CENCError) {
            _ = try r.readUE("seq_parameter_set_id", in: 0 ... 31)
            Issue.record("accepted 32")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.reason.contains("seq_parameter_set_id"))
        }
    }

    @Test func trailingBitsAndMoreData() throws {
        var r = H264.BitReader([0b1010_0000])
        #expect(try r.readFlag())
        #expect(r.hasMoreRBSPData())  // a zero bit of data precedes the stop bit
        _ = try r.readFlag()
        #expect(!r.hasMoreRBSPData())  // the next one bit is the stop bit
        try r.readTrailingBits()
        #expect(r.bitsLeft == 0)

        var more = H264.BitReader([0b1101_0000, 0x00])
        _ = try more.readFlag()
        #expect(more.hasMoreRBSPData())
        _ = try more.readBits(2)
        try more.readTrailingBits()  // trailing zero bytes allowed

        var bad = H264.BitReader([0b0100_0000])
        expectCENCError(.invalidValue) { try bad.readTrailingBits() }
        var junk = H264.BitReader([0b1000_0001])
        expectCENCError(.invalidValue) { try junk.readTrailingBits() }
        var empty = H264.BitReader([])
        expectCENCError(.truncated) { try empty.readTrailingBits() }
    }
}
