import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct ConstantTimeTests {
    @Test func equalSequences() {
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], Data([1, 2, 3])))
        let long = SymmetricTestSupport.pattern(count: 4096)
        #expect(ConstantTime.equals(long, Data(long)))
        #expect(ConstantTime.equals(long[100..<200], Array(long[100..<200])))
    }

    @Test func everySingleBitDifferenceIsSeen() {
        let base = SymmetricTestSupport.pattern(count: 32, seed: 5)
        for index in base.indices {
            for bit in 0..<8 {
                var other = base
                other[index] ^= UInt8(1 << bit)
                #expect(!ConstantTime.equals(base, other), "byte \(index) bit \(bit)")
            }
        }
    }

    @Test func lengthMismatchIsUnequal() {
        #expect(!ConstantTime.equals([0] as [UInt8], [UInt8]()))
        #expect(!ConstantTime.equals([1, 2] as [UInt8], [1, 2, 0] as [UInt8]))
        #expect(!ConstantTime.equals([UInt8](repeating: 0, count: 16), [UInt8](repeating: 0, count: 17)))
    }
}
