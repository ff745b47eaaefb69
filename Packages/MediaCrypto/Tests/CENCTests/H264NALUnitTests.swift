import Testing
@testable import MediaDRMCENC

@Suite("NAL units of length-prefixed samples")
struct H264NALUnitTests {
    static let nals: [[UInt8]] = [[0x09, 0xF0], [0x67, 0x42, 0x00, 0x1E], [0x65, 0x88, 0x84, 0x00, 0x33]]

    @Test(arguments: [1, 2, 4])
    func splitsEveryLengthSize(_ size: Int) throws {
        let sample = Self.nals.flatMap { lengthPrefixed($0, size: size) }
        let units = try H264.NALUnit.split(sample, lengthSize: size)
        #expect(units.count == 3)
        #expect(units.map { Array(sample[$0.range]) } == Self.nals)
        #expect(units.map(\.type) == [.accessUnitDelimiter, .sequenceParameterSet, .idrSlice])
        #expect(units.map(\.isVideoSlice) == [false, false, true])
        #expect(units[2].referenceIDC == 3)
        #expect(units[0].prefixOffset == 0)
        #expect(units[1].totalRange == (2 + size) ..< (6 + 2 * size))
    }

    @Test func everyPrefixOfASampleFailsOrIsWhole() throws {
        let sample = Self.nals.flatMap { lengthPrefixed($0) }
        let boundaries = Set([0, 6, 14, 23])
        for length in 0 ... sample.count {
            do throws(CENCError) {
                let units = try H264.NALUnit.split(Array(sample[0 ..< length]), lengthSize: 4)
                #expect(boundaries.contains(length), "prefix \(length) split")
                #expect(units.last?.range.upperBound ?? 0 == length)
            } catch {
                #expect(error.code == .truncated)
                #expect(!boundaries.contains(length))
            }
        }
    }

    @Test func malformedSamplesAreRefused() {
        expectCENCError(.unsupported) { _ = try H264.NALUnit.split([0, 0, 1, 0x09], lengthSize: 3) }
        expectCENCError(.unsupported) { _ = try H264.NALUnit.split([], lengthSize: 8) }
        expectCENCError(.invalidNALUnit) { _ = try H264.NALUnit.split([0, 0, 0, 0, 0, 0, 0, 1, 0x09], lengthSize: 4) }
        expectCENCError(.invalidNALUnit) { _ = try H264.NALUnit.split([0, 0, 0, 1, 0x89], lengthSize: 4) }
        expectCENCError(.truncated) { _ = try H264.NALUnit.split([0xFF, 0xFF, 0xFF, 0xFF, 0x09], lengthSize: 4) }
        expectCENCError(.truncated) { _ = try H264.NALUnit.split([0, 0, 0, 1, 0x09, 0x00], lengthSize: 4) }
        #expect((try? H264.NALUnit.split([], lengthSize: 4))?.isEmpty == true)
    }
}
