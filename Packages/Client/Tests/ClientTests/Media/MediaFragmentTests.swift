import MediaDRMCrypto
import Foundation
import MediaDRMMP4
import Testing
@testable import Client

extension MediaTests {
    /// Offset resolution and rewriting on crafted fragments: an explicit base data offset, a run
    /// without a data offset continuing the previous one, and a second traf based on the first's
    /// end; serialising makes every run moof-relative and keeps every sample's bytes.
    @Suite struct MediaFragmentTests {
        private func clearVideoInit() throws -> ClearInitSegment {
            let fixtures = try MediaFixtures.get()
            let rewritten = try InitSegmentRewriter.rewrite(try fixtures.shakaVideo.initBytes())
            // Rewriting a clear init again gives a track without protection.
            return try InitSegmentRewriter.rewrite(try rewritten.serializedBytes())
        }

        private func sample(_ size: UInt32) -> TrackRunBox.Sample {
            TrackRunBox.Sample(sampleDuration: 512, sampleSize: size, sampleFlags: 0, sampleCompositionTimeOffset: 0)
        }

        @Test func offsetsResolveAndAreRewrittenRelativeToTheMoof() throws {
            let initSegment = try clearVideoInit()
            #expect(initSegment.protections.isEmpty)
            let payload: [UInt8] = Array(0 ..< 20)
            // The mdat payload starts after the styp (16 bytes), moof and mdat header; the
            // explicit base data offset is that absolute position.
            let styp = try FileTypeBox(type: "styp", majorBrand: "msdh", minorVersion: 0, compatibleBrands: ["msdh"]).serializedBytes()
            func moof(base: UInt64) -> MovieFragmentBox {
                var first = TrackFragmentHeaderBox(trackID: 1, defaultBaseIsMoof: false)
                first.baseDataOffset = base
                var traf1 = TrackFragmentBox()
                traf1.children = [first, TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: 1024),
                                  TrackRunBox(dataOffset: 0, samples: [sample(3), sample(5)]),
                                  TrackRunBox(dataOffset: nil, samples: [sample(4)])]
                // The second traf has neither a base offset nor default-base-is-moof: its data
                // follows the first traf's.
                var traf2 = TrackFragmentBox()
                traf2.children = [TrackFragmentHeaderBox(trackID: 1, defaultBaseIsMoof: false),
                                  TrackRunBox(dataOffset: nil, samples: [sample(8)])]
                var box = MovieFragmentBox()
                box.children = [MovieFragmentHeaderBox(sequenceNumber: 9), traf1, traf2]
                return box
            }
            let moofSize = try moof(base: 0).serializedBytes().count
            let base = UInt64(styp.count + moofSize + 8)
            let segment = styp + (try moof(base: base).serializedBytes()) + (try MediaDataBox.header(payloadSize: 20)) + payload

            let decryptor = try FragmentDecryptor(initSegment: initSegment, keys: [:])
            let fragments = try decryptor.decryptSegment(segment)
            #expect(fragments.count == 1)
            let fragment = try #require(fragments.first)
            #expect(fragment.trackFragments.map { $0.samples.map(\.offset) } == [[0, 3, 8], [12]])
            #expect(fragment.trackFragments[0].baseMediaDecodeTime == 1024)
            // The second traf has no tfdt: it continues after the first's three samples.
            #expect(fragment.trackFragments[1].baseMediaDecodeTime == 1024 + 3 * 512)
            #expect(fragment.sampleData(traf: 0, index: 2).map(Array.init) == [8, 9, 10, 11])

            // Rewritten: renumbered, moof-relative, and the same bytes under every sample.
            let bytes = try fragment.serializedBytes(sequenceNumber: 3, trackIDs: [1: 2])
            let boxes = try BoxParser.parse(bytes)
            let out = try #require(boxes.first as? MovieFragmentBox)
            #expect(out.movieFragmentHeader?.sequenceNumber == 3)
            #expect(out.trackFragments.allSatisfy { $0.trackFragmentHeader?.trackID == 2 })
            #expect(out.trackFragments.allSatisfy { $0.trackFragmentHeader?.baseDataOffset == nil })
            #expect(out.trackFragments.allSatisfy { $0.trackFragmentHeader?.defaultBaseIsMoof == true })
            // A tfdt was added where the input had none.
            #expect(out.trackFragments[1].decodeTime?.baseMediaDecodeTime == 1024 + 3 * 512)
            let start = bytes.count - payload.count
            let offsets = out.trackFragments.flatMap { $0.trackRuns.map { Int($0.dataOffset ?? -1) } }
            #expect(offsets == [start, start + 8, start + 12])
            #expect(Array(bytes[start...]) == payload)

            // Reading the rewritten fragment back resolves the same samples.
            let again = try FragmentDecryptor(initSegment: initSegment, keys: [:])
                .decryptSegment(try fragment.serializedBytes())
            #expect(again.first?.trackFragments.map { $0.samples } == fragment.trackFragments.map { $0.samples })
        }

        @Test func aHugeCountOfEmptySamplesIsRefused() throws {
            let initSegment = try clearVideoInit()
            var traf = TrackFragmentBox()
            let empty = TrackRunBox.Sample()
            traf.children = [TrackFragmentHeaderBox(trackID: 1),
                             TrackRunBox(dataOffset: nil, samples: Array(repeating: empty, count: (1 << 18) + 1))]
            var moof = MovieFragmentBox()
            moof.children = [MovieFragmentHeaderBox(sequenceNumber: 1), traf]
            let segment = try moof.serializedBytes() + (try MediaDataBox.header(payloadSize: 0))
            let decryptor = try FragmentDecryptor(initSegment: initSegment, keys: [:])
            #expect(throws: MediaError(.limitExceeded, "")) { try decryptor.decryptSegment(segment) }
        }
    }
}
