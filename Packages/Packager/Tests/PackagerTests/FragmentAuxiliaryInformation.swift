import Foundation

/// The encryption description of each `moof` of a track (one `traf` each), read by walking the
/// boxes directly rather than through the MP4 module under test.
struct FragmentAuxiliaryInformation {
    var sampleCount: UInt32
    var senc: Data
    var saiz: Data?
    var sencSampleCount: UInt32
    /// The `saio`'s single offset (from the `moof`, default-base-is-moof) equals the position of
    /// the `senc`'s first entry.
    var saioPointsAtSencEntries: Bool

    static func read(_ data: Data) throws -> [FragmentAuxiliaryInformation] {
        var fragments: [FragmentAuxiliaryInformation] = []
        for moof in try boxes(data, in: data.startIndex ..< data.endIndex) where moof.type == "moof" {
            let trafs = try boxes(data, in: moof.payload).filter { $0.type == "traf" }
            guard trafs.count == 1, let traf = trafs.first else { throw TestFailure("a moof without exactly one traf") }
            let children = try boxes(data, in: traf.payload)
            func child(_ type: String) -> Box? { children.first { $0.type == type } }
            guard let trun = child("trun"), let senc = child("senc") else { throw TestFailure("a traf without trun or senc") }
            let sencEntries = senc.payload.lowerBound + 8 // version, flags, sample_count
            var pointsAtEntries = false
            if let saio = child("saio"), saio.payload.count == 12, uint32(data, saio.payload.lowerBound + 4) == 1 {
                pointsAtEntries = Int(uint32(data, saio.payload.lowerBound + 8)) == sencEntries - moof.start
            }
            fragments.append(FragmentAuxiliaryInformation(
                sampleCount: uint32(data, trun.payload.lowerBound + 4), senc: data[senc.start ..< senc.payload.upperBound],
                saiz: child("saiz").map { data[$0.start ..< $0.payload.upperBound] },
                sencSampleCount: uint32(data, senc.payload.lowerBound + 4), saioPointsAtSencEntries: pointsAtEntries))
        }
        return fragments
    }

    struct Box {
        var type: String
        var start: Int
        var payload: Range<Int>
    }

    /// 32-bit box sizes only: test fragments are small.
    static func boxes(_ data: Data, in range: Range<Int>) throws -> [Box] {
        var result: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = Int(uint32(data, offset))
            guard size >= 8, offset + size <= range.upperBound else { throw TestFailure("a box overruns its parent at \(offset)") }
            let type = String(decoding: data[offset + 4 ..< offset + 8], as: UTF8.self)
            result.append(Box(type: type, start: offset, payload: offset + 8 ..< offset + size))
            offset += size
        }
        return result
    }

    static func uint32(_ data: Data, _ offset: Int) -> UInt32 {
        guard offset >= data.startIndex, offset + 4 <= data.endIndex else { return 0 }
        return data[offset ..< offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
