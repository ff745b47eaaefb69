import Foundation
import Testing
@testable import MediaDRMMP4

/// The incremental fragmented-MP4 reader: ffmpeg's pipe output read whole and in small chunks,
/// defaults resolved as §8.8 says, and every truncation and malformation refused by name.
@Suite struct FragmentedMP4ReaderTests {
    /// Every fragment of `bytes`, read through chunks of `chunk` bytes.
    static func readAll(_ bytes: [UInt8], chunk: Int = Int.max, limits: FragmentedMP4Limits = FragmentedMP4Limits()) throws(MP4Error)
        -> (FragmentedMP4Header, [MP4Fragment]) {
        var reader = FragmentedMP4Reader(stream: MP4MemoryStream(bytes, chunkSize: chunk), limits: limits)
        let header = try reader.readHeader()
        var fragments: [MP4Fragment] = []
        while let fragment = try reader.nextFragment() { fragments.append(fragment) }
        return (header, fragments)
    }

    static func movie() throws -> [UInt8] {
        var moov = MovieBoxTests.movie()
        var mvex = MovieExtendsBox()
        mvex.children.append(TrackExtendsBox(trackID: 1, defaultSampleDuration: 512, defaultSampleSize: 0, defaultSampleFlags: 0x0101_0000))
        moov.children.append(mvex)
        return try BoxParser.serialize([FileTypeBox(majorBrand: "iso6", minorVersion: 0, compatibleBrands: ["iso6"]), moov])
    }

    /// A `moof` of three samples (sizes 3, 4, 5 from the run; durations and flags from the
    /// defaults, the first sample's flags from `first_sample_flags`) and its `mdat`.
    static func fragment(sequence: UInt32, decodeTime: UInt64?, dataOffsetDelta: Int32 = 0, track: UInt32 = 1) throws -> [UInt8] {
        func build(_ offset: Int32) -> MovieFragmentBox {
            var traf = TrackFragmentBox()
            var tfhd = TrackFragmentHeaderBox(trackID: track, defaultBaseIsMoof: true)
            tfhd.defaultSampleDuration = 1000
            traf.children.append(tfhd)
            if let decodeTime { traf.children.append(TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: decodeTime)) }
            traf.children.append(TrackRunBox(dataOffset: offset, firstSampleFlags: 0x0200_0000,
                                             samples: [3, 4, 5].map { TrackRunBox.Sample(sampleSize: $0) }))
            var moof = MovieFragmentBox()
            moof.children.append(MovieFragmentHeaderBox(sequenceNumber: sequence))
            moof.children.append(traf)
            return moof
        }
        let size = try build(0).serializedBytes().count
        let moof = try build(Int32(size + 8) + dataOffsetDelta).serializedBytes()
        return moof + [0, 0, 0, 20] + Array("mdat".utf8) + Array(1 ... 12)
    }

    static func stream() throws -> [UInt8] {
        try movie() + fragment(sequence: 1, decodeTime: 0) + [0, 0, 0, 10] + Array("free".utf8) + [0, 0]
            + fragment(sequence: 2, decodeTime: nil)
    }

    @Test func defaultsAreResolvedAndTimesContinue() throws {
        let (header, fragments) = try Self.readAll(try Self.stream())
        #expect(header.tracks.map(\.trackID) == [1] && header.tracks.first?.timescale == 12800)
        #expect(header.fileType?.majorBrand == "iso6")
        #expect(fragments.map(\.sequenceNumber) == [1, 2])
        let samples = fragments.flatMap(\.samples)
        #expect(samples.map(\.bytes) == [[1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11, 12], [1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11, 12]])
        #expect(samples.map(\.duration) == Array(repeating: 1000, count: 6))
        // No tfdt in the second fragment: its run continues where the first ended.
        #expect(samples.map(\.decodeTime) == [0, 1000, 2000, 3000, 4000, 5000])
        #expect(samples.map(\.isSync) == [true, false, false, true, false, false])
    }

    @Test func chunkedReadsAgreeWithWholeReads() throws {
        let bytes = try Self.stream()
        let whole = try Self.readAll(bytes).1.flatMap(\.samples)
        for chunk in [1, 3, 7, 64] {
            #expect(try Self.readAll(bytes, chunk: chunk).1.flatMap(\.samples) == whole, "chunk \(chunk)")
        }
    }

    @Test func ffmpegPipeOutputReads() throws {
        let url = try #require(TestMedia.fragmented, "ffmpeg failed to make the test file")
        let bytes = Array(try Data(contentsOf: url))
        let (header, fragments) = try Self.readAll(bytes, chunk: 4096)
        let video = try #require(header.tracks.first { $0.handlerType == "vide" })
        let audio = try #require(header.tracks.first { $0.handlerType == "soun" })
        let videoSamples = fragments.flatMap(\.samples).filter { $0.trackID == video.trackID }
        let audioSamples = fragments.flatMap(\.samples).filter { $0.trackID == audio.trackID }
        #expect(videoSamples.count == 50)
        #expect(videoSamples.first?.isSync == true)
        #expect(videoSamples.filter(\.isSync).count == fragments.count)
        #expect(!audioSamples.isEmpty)
        for samples in [videoSamples, audioSamples] {
            for (a, b) in zip(samples, samples.dropFirst()) { #expect(a.decodeTime + UInt64(a.duration) == b.decodeTime) }
        }
        // Every payload byte of every mdat belongs to one sample.
        var iterator = BoxIterator(source: MP4MemorySource(bytes))
        let mdatBytes = try iterator.all().filter { $0.type == "mdat" }.reduce(UInt64(0)) { $0 + $1.payloadSize }
        #expect(fragments.flatMap(\.samples).reduce(0) { $0 + $1.bytes.count } == Int(mdatBytes))
    }

    @Test func everyTruncationIsRefusedOrEndsAtABoxBoundary() throws {
        let bytes = try Self.stream()
        var iterator = BoxIterator(source: MP4MemorySource(bytes))
        let boundaries = Set(try iterator.all().map { Int($0.endOffset) })
        for length in 0 ..< bytes.count {
            do {
                _ = try Self.readAll(Array(bytes[0 ..< length]), chunk: 5)
                // Only a cut between a whole mdat and the next box reads cleanly.
                #expect(boundaries.contains(length), "a stream cut at \(length) read without error")
            } catch {
                #expect(error.code == .truncated || (boundaries.contains(length) && error.code == .missingBox), "cut at \(length): \(error)")
            }
        }
    }

    func expectRefusal(_ bytes: [UInt8], _ code: MP4Error.Code, _ words: String, limits: FragmentedMP4Limits = FragmentedMP4Limits(),
                       sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Self.readAll(bytes, limits: limits)
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.reason.contains(words), "\(error.reason)", sourceLocation: sourceLocation)
        }
    }

    @Test func malformedStreamsAreRefusedByName() throws {
        let movie = try Self.movie()
        let fragment = try Self.fragment(sequence: 1, decodeTime: 0)
        expectRefusal(fragment + movie, .missingBox, "before the 'moov'")
        expectRefusal(Array(movie[0 ..< 30]), .truncated, "ends inside")
        expectRefusal([], .truncated, "before its 'moov'")
        // A moov without mvex: progressive, not fragmented.
        let progressive = try BoxParser.serialize([MovieBoxTests.movie()])
        expectRefusal(progressive, .missingBox, "no 'mvex'")
        expectRefusal(movie + [0, 0, 0, 12] + Array("mdat".utf8) + [1, 2, 3, 4], .missingBox, "no 'moof' before it")
        let moofOnly = Array(fragment[0 ..< (fragment.count - 20)])
        expectRefusal(movie + moofOnly + [0, 0, 0, 8] + Array("free".utf8), .missingBox, "not by its 'mdat'")
        expectRefusal(movie + moofOnly, .truncated, "before its 'mdat'")
        expectRefusal(movie + (try Self.fragment(sequence: 1, decodeTime: 0, dataOffsetDelta: 1)), .invalidField, "outside the 'mdat'")
        expectRefusal(movie + (try Self.fragment(sequence: 1, decodeTime: 0, dataOffsetDelta: -9)), .invalidField, "outside the 'mdat'")
        expectRefusal(movie + (try Self.fragment(sequence: 1, decodeTime: 0, track: 7)), .invalidField, "track 7")
        expectRefusal(movie + [0, 0, 0, 0] + Array("mdat".utf8), .invalidSize, "size 0")
        expectRefusal(movie + [0, 0, 0, 8] + Array("junk".utf8), .invalidField, "unexpected top-level box 'junk'")
        expectRefusal(movie + movie.suffix(from: 20), .invalidField, "a second 'moov'")
        // Sizes are checked before anything is allocated: a huge mdat header alone is refused.
        expectRefusal(movie + Array(fragment[0 ..< (fragment.count - 20)]) + [0, 0, 0, 1] + Array("mdat".utf8) + [0x7F, 0, 0, 0, 0, 0, 0, 0],
                      .invalidSize, "larger than the 'mdat' limit")
        expectRefusal(movie + fragment, .invalidSize, "'moof' limit", limits: FragmentedMP4Limits(maximumFragmentBoxSize: 16))
        expectRefusal(movie + fragment, .countTooLarge, "sample_count", limits: FragmentedMP4Limits(maximumSamplesPerFragment: 2))
    }
}
