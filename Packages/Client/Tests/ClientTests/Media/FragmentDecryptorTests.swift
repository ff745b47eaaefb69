import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMMP4
import Testing
@testable import Client

extension MediaTests {
    @Suite struct FragmentDecryptorTests {
        /// Shaka Packager's cbcs output, decrypted by the library, carries the source's samples bit
        /// for bit (ffmpeg streamhash of the copied packets) and decodes to the same frames.
        @Test(arguments: ["v", "a"])
        func shakaCBCSDecryptsToTheSourceSamples(_ kind: String) throws {
            let fixtures = try MediaFixtures.get()
            let track = kind == "v" ? fixtures.shakaVideo : fixtures.shakaAudio
            let clear = try fixtures.write(try fixtures.decrypt(track), "shaka-clear-\(kind).mp4")
            let hashes = try Tools.streamHashes(clear)
            #expect(hashes.count == 1)
            #expect(hashes[kind] == fixtures.sourceStreamHashes[kind])
            let decoded = try Tools.frameHashes(clear, "0:\(kind)")
            let reference = try Tools.frameHashes(fixtures.source, "0:\(kind)")
            #expect(!decoded.isEmpty)
            let same = decoded == reference
            #expect(same, "decoded frames differ from the source's")
        }

        /// The fixture is really encrypted: ffmpeg copying the packets without a key does not get the
    /// source's samples (so the equality above is not vacuous).
    @Test(arguments: ["v", "a"])
    func shakaOutputIsEncrypted(_ kind: String) throws {
        let fixtures = try MediaFixtures.get()
        let track = kind == "v" ? fixtures.shakaVideo : fixtures.shakaAudio
        var encrypted = try track.initBytes()
        for index in track.segments.indices { encrypted += try track.segmentBytes(index) }
        let url = try fixtures.write(encrypted, "shaka-encrypted-\(kind).mp4")
        let hash = try Tools.streamHashes(url)[kind]
        #expect(hash != nil)
        #expect(hash != fixtures.sourceStreamHashes[kind])
    }

    /// The decrypted fragments are clear: no senc, saiz, saio or seig group, and every trun
        /// points into its own mdat (ffmpeg reading them proves the offsets; this checks the boxes).
        @Test func clearFragmentsCarryNoEncryptionBoxes() throws {
            let fixtures = try MediaFixtures.get()
            let clear = try InitSegmentRewriter.rewrite(try fixtures.shakaVideo.initBytes())
            let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: MediaFixtures.shakaKey))
            let input = try fixtures.shakaVideo.segmentBytes(0)
            let fragments = try decryptor.decryptSegment(input)
            #expect(fragments.count == 1)
            let output = try decryptor.clearSegment(input)
            for type in ["senc", "saiz", "saio", "pssh", "sidx", "styp"] {
                #expect(!contains(output, fourCC: type), "clear segment still holds '\(type)'")
            }
            let boxes = try BoxParser.parse(output, options: DecodingOptions())
            #expect(boxes.map(\.boxType) == ["moof", "mdat"])
            let moof = try #require(boxes.first as? MovieFragmentBox)
            let traf = try #require(moof.trackFragments.first)
            #expect(traf.trackFragmentHeader?.defaultBaseIsMoof == true)
            let run = try #require(traf.trackRuns.first)
            let moofSize = try moof.serializedBytes().count
            #expect(run.dataOffset == Int32(moofSize + 8))
            // Sample sizes are unchanged by cbcs, so the mdat payload keeps its size.
            #expect(output.count - moofSize - 8 == fragments[0].mediaData.count)
        }

        /// Decrypting in the read buffer and writing the payload from it (what `player decrypt`
        /// does) gives the same bytes as `clearSegment`, and a refused segment writes nothing.
        @Test(arguments: ["v", "a"])
        func inPlaceWritingMatchesClearSegment(_ kind: String) throws {
            let fixtures = try MediaFixtures.get()
            let track = kind == "v" ? fixtures.shakaVideo : fixtures.shakaAudio
            let clear = try InitSegmentRewriter.rewrite(try track.initBytes())
            let reference = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: MediaFixtures.shakaKey))
            let inPlace = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: MediaFixtures.shakaKey))
            var buffer: [UInt8] = []
            for index in track.segments.indices {
                let segment = try track.segmentBytes(index)
                buffer.removeAll(keepingCapacity: true)
                buffer += segment
                let output = MemoryOutput()
                try inPlace.writeClearSegment(&buffer, to: output)
                #expect(output.bytes == (try reference.clearSegment(segment)), "segment \(index)")
            }
        }

        @Test func inPlaceWritingOfARefusedSegmentWritesNothing() throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            var hostile = try SegmentSurgery.modifyingFragment(segment, decryptor) { traf in
                var senc = try #require(traf.sampleEncryption)
                var sample = senc.samples[3]
                sample.subsamples[0].bytesOfProtectedData += 16
                senc.samples[3] = sample
                traf.sampleEncryption = senc
            }
            let output = MemoryOutput()
            #expect(throws: MediaError(.invalidSubsamples, "")) { try decryptor.writeClearSegment(&hostile, to: output) }
            #expect(output.bytes.isEmpty)
        }

        /// cbcs has no integrity check: a wrong key is not detected and yields different samples.
        @Test func aWrongKeyYieldsGarbageNotAnError() throws {
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaAudio
            let clear = try InitSegmentRewriter.rewrite(try track.initBytes())
            var wrong = MediaFixtures.shakaKey
            wrong[0] ^= 1
            let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: wrong))
            var out = try clear.serializedBytes()
            for index in track.segments.indices { out += try decryptor.clearSegment(try track.segmentBytes(index)) }
            let url = try fixtures.write(out, "wrong-key-a.mp4")
            #expect(try Tools.streamHashes(url)["a"] != fixtures.sourceStreamHashes["a"])
        }

        @Test func aProtectedTrackWithoutAKeyIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            let clear = try InitSegmentRewriter.rewrite(try fixtures.shakaVideo.initBytes())
            #expect(throws: MediaError(.keyMismatch, "")) { try FragmentDecryptor(initSegment: clear, keys: [:]) }
            #expect(throws: MediaError(.keyMismatch, "")) {
                try FragmentDecryptor(initSegment: clear, key: SecretKey(data: [UInt8](repeating: 1, count: 32)))
            }
        }

        /// Every prefix of a media segment fails with a MediaError, never a trap.
        @Test(arguments: ["v", "a"])
        func everyPrefixOfASegmentIsRefused(_ kind: String) throws {
            let fixtures = try MediaFixtures.get()
            let track = kind == "v" ? fixtures.shakaVideo : fixtures.shakaAudio
            let clear = try InitSegmentRewriter.rewrite(try track.initBytes())
            let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: MediaFixtures.shakaKey))
            let bytes = try track.segmentBytes(0)
            // Every prefix through the mdat header, then every 7th inside the mdat payload (all of
            // them for audio), and the last byte short.
            let mdat = try #require(find(bytes, fourCC: "mdat"))
            var lengths = Array(0 ... mdat + 8)
            lengths += stride(from: mdat + 9, to: bytes.count, by: kind == "a" ? 1 : 7)
            lengths.append(bytes.count - 1)
            for length in lengths {
                #expect(throws: MediaError.self) { try decryptor.decryptSegment(Array(bytes[0 ..< length])) }
            }
        }

        /// Per-sample IVs (16 bytes in each senc entry instead of tenc's constant IV): the same
        /// samples carried with their IV in senc decrypt to the same bytes.
        @Test func perSampleIVsDecryptLikeTheConstantIV() throws {
            let fixtures = try MediaFixtures.get()
            let (constant, segment) = try videoSegment(fixtures)
            let protection = try #require(constant.initSegment.protections[1])
            let iv = try #require(protection.constantIV)
            var tenc = protection.trackEncryption
            tenc.defaultPerSampleIVSize = 16
            tenc.defaultConstantIV = nil
            let perSampleInit = ClearInitSegment(
                fileType: constant.initSegment.fileType, movie: constant.initSegment.movie,
                protections: [1: TrackProtection(trackID: 1, originalFormat: "avc1", scheme: "cbcs", trackEncryption: tenc)])
            let perSample = try FragmentDecryptor(initSegment: perSampleInit, key: SecretKey(data: MediaFixtures.shakaKey))
            let withIVs = try SegmentSurgery.modifyingFragment(segment, constant, keepSize: false) { traf in
                var senc = try #require(traf.sampleEncryption)
                senc.perSampleIVSize = 16
                for index in senc.samples.indices { senc.samples[index].initializationVector = iv }
                traf.sampleEncryption = senc
            }
            let expected = try constant.decryptSegment(segment)
            let actual = try perSample.decryptSegment(withIVs)
            let same = expected.map(\.mediaData) == actual.map(\.mediaData)
            #expect(same, "per-sample IV decryption differs")
            // A wrong IV in one entry changes that sample only.
            let wrongIV = try SegmentSurgery.modifyingFragment(segment, constant, keepSize: false) { traf in
                var senc = try #require(traf.sampleEncryption)
                senc.perSampleIVSize = 16
                for index in senc.samples.indices { senc.samples[index].initializationVector = iv }
                senc.samples[2].initializationVector[0] ^= 1
                traf.sampleEncryption = senc
            }
            let garbled = try #require(try perSample.decryptSegment(wrongIV).first)
            let reference = try #require(expected.first)
            #expect(garbled.sampleData(traf: 0, index: 1) == reference.sampleData(traf: 0, index: 1))
            #expect(garbled.sampleData(traf: 0, index: 2) != reference.sampleData(traf: 0, index: 2))
        }

        @Test func aSubsampleMapExceedingItsSampleIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            let hostile = try SegmentSurgery.modifyingFragment(segment, decryptor) { traf in
                var senc = try #require(traf.sampleEncryption)
                var sample = senc.samples[3]
                sample.subsamples[0].bytesOfProtectedData += 16
                senc.samples[3] = sample
                traf.sampleEncryption = senc
            }
            #expect(throws: MediaError(.invalidSubsamples, "")) { try decryptor.decryptSegment(hostile) }
        }

        @Test func aSencCountDifferentFromTheRunsIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            let hostile = try SegmentSurgery.modifyingFragment(segment, decryptor, keepSize: false) { traf in
                var senc = try #require(traf.sampleEncryption)
                senc.samples.removeLast()
                traf.sampleEncryption = senc
            }
            #expect(throws: MediaError(.invalidSubsamples, "")) { try decryptor.decryptSegment(hostile) }
        }

        @Test(arguments: [Int32.max / 2, -1_000, 1])
        func dataOffsetsOutsideTheMdatAreRefused(_ offset: Int32) throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            let hostile = try SegmentSurgery.modifyingFragment(segment, decryptor) { traf in
                guard let index = traf.children.boxes.firstIndex(where: { $0 is TrackRunBox }),
                      var run = traf.children.boxes[index] as? TrackRunBox else { return }
                run.dataOffset = offset
                traf.children.boxes[index] = run
            }
            #expect(throws: MediaError(.dataOutOfBounds, "")) { try decryptor.decryptSegment(hostile) }
        }

        @Test func aSampleRunningPastTheMdatIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            let hostile = try SegmentSurgery.modifyingFragment(segment, decryptor) { traf in
                guard let index = traf.children.boxes.firstIndex(where: { $0 is TrackRunBox }),
                      var run = traf.children.boxes[index] as? TrackRunBox else { return }
                let last = run.samples.count - 1
                run.samples[last].sampleSize = (run.samples[last].sampleSize ?? 0) + 1
                traf.children.boxes[index] = run
            }
            #expect(throws: MediaError(.dataOutOfBounds, "")) { try decryptor.decryptSegment(hostile) }
        }

        @Test func aProtectedTrafWithoutSencIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            let hostile = try SegmentSurgery.modifyingFragment(segment, decryptor, keepSize: false) { traf in
                traf.sampleEncryption = nil
            }
            #expect(throws: MediaError.self) { try decryptor.decryptSegment(hostile) }
        }

        @Test func aFragmentOfAnotherTrackIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            let hostile = try SegmentSurgery.modifyingFragment(segment, decryptor) { traf in
                var tfhd = try #require(traf.trackFragmentHeader)
                tfhd.trackID = 7
                traf.trackFragmentHeader = tfhd
            }
            #expect(throws: MediaError(.malformed, "")) { try decryptor.decryptSegment(hostile) }
        }

        @Test func aMoofWithoutItsMdatIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            let (decryptor, segment) = try videoSegment(fixtures)
            let mdat = try #require(find(segment, fourCC: "mdat"))
            #expect(throws: MediaError(.missingBox, "")) { try decryptor.decryptSegment(Array(segment[0 ..< mdat])) }
        }

        private func videoSegment(_ fixtures: MediaFixtures) throws -> (FragmentDecryptor, [UInt8]) {
            let clear = try InitSegmentRewriter.rewrite(try fixtures.shakaVideo.initBytes())
            let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: MediaFixtures.shakaKey))
            return (decryptor, try fixtures.shakaVideo.segmentBytes(1))
        }
    }
}

/// Rewrites the first `traf` of a segment's `moof` with the MP4 module and puts it back in front
/// of the original `mdat`, other top-level boxes dropped.
enum SegmentSurgery {
    static func modifyingFragment(_ segment: [UInt8], _ decryptor: FragmentDecryptor, keepSize: Bool = true,
                                  _ change: (inout TrackFragmentBox) throws -> Void) throws -> [UInt8] {
        var iterator = BoxIterator(source: MP4MemorySource(segment))
        let headers = try iterator.all()
        let moofHeader = try #require(headers.first(where: { $0.type == "moof" }))
        let mdatHeader = try #require(headers.first(where: { $0.type == "mdat" }))
        var sizes: [UInt32: Int] = [:]
        for (id, protection) in decryptor.initSegment.protections { sizes[id] = protection.perSampleIVSize }
        var moof = try iterator.readBox(moofHeader, as: MovieFragmentBox.self, options: DecodingOptions(perSampleIVSizes: sizes))
        let index = try #require(moof.children.boxes.firstIndex(where: { $0 is TrackFragmentBox }))
        var traf = try #require(moof.children.boxes[index] as? TrackFragmentBox)
        try change(&traf)
        moof.children.boxes[index] = traf
        var moofBytes = try moof.serializedBytes()
        let delta = moofBytes.count - Int(moofHeader.size)
        if delta != 0, !keepSize {
            // Keep the runs pointing at the same mdat bytes.
            for child in traf.children.boxes.indices {
                guard var run = traf.children.boxes[child] as? TrackRunBox, let offset = run.dataOffset else { continue }
                run.dataOffset = offset + Int32(delta)
                traf.children.boxes[child] = run
            }
            moof.children.boxes[index] = traf
            moofBytes = try moof.serializedBytes()
        }
        if keepSize { #expect(moofBytes.count == Int(moofHeader.size), "the surgery must keep the moof size") }
        // Shaka's segments start with styp and sidx; the moof-relative offsets survive dropping them.
        return moofBytes + Array(segment[Int(mdatHeader.offset) ..< Int(mdatHeader.endOffset)])
    }
}
