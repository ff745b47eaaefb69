import Foundation
import Testing
@testable import MediaDRMZIP

@Suite struct CRC32Tests {
    @Test func knownAnswers() {
        // The standard check value of CRC-32/ISO-HDLC.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test func continuesFromInitial() {
        let data = TestData.bytes(count: 10_000, seed: 1)
        let whole = CRC32.checksum(data)
        let first = CRC32.checksum(data[0..<3_333])
        #expect(CRC32.checksum(data[3_333...], initial: first) == whole)
    }

    @Test func noncontiguousData() {
        // DispatchData with two regions exercises the per-region path.
        let a = TestData.bytes(count: 100, seed: 2), b = TestData.bytes(count: 57, seed: 3)
        var d = DispatchData.empty
        a.withUnsafeBytes { d.append($0) }
        b.withUnsafeBytes { d.append($0) }
        #expect(CRC32.checksum(d) == CRC32.checksum(a + b))
    }
}
