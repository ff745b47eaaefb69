import MediaDRMCrypto
import Foundation
import MediaDRMMP4
import Testing
@testable import Client

extension MediaTests {
    @Suite struct FragmentedMP4MuxerTests {
        private func sources(_ tracks: [(MediaFixtures.Track, [UInt8])]) throws -> ([ClearInitSegment], [any MediaFragmentSource]) {
            var inits: [ClearInitSegment] = []
            var sources: [any MediaFragmentSource] = []
            for (track, key) in tracks {
                let clear = try InitSegmentRewriter.rewrite(try track.initBytes())
                let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: key))
                inits.append(clear)
                sources.append(DecryptingSegmentSource(decryptor: decryptor, segmentPaths: track.segments.map(\.path)))
            }
            return (inits, sources)
        }

        /// Shaka's two cbcs tracks, decrypted and muxed into one fMP4: ffmpeg finds both streams,
        /// each bit-identical to the source's packets and decoding to the source's frames.
        @Test func shakaVideoAndAudioMuxIntoOneDecodableFile() throws {
            let fixtures = try MediaFixtures.get()
            let (inits, sources) = try sources([(fixtures.shakaVideo, MediaFixtures.shakaKey),
                                                (fixtures.shakaAudio, MediaFixtures.shakaKey)])
            let muxer = try FragmentedMP4Muxer(components: inits)
            let output = MemoryOutput()
            try muxer.stream(sources, to: output)
            let url = try fixtures.write(output.bytes, "muxed.mp4")

            let hashes = try Tools.streamHashes(url)
            #expect(hashes.count == 2)
            #expect(hashes["v"] == fixtures.sourceStreamHashes["v"])
            #expect(hashes["a"] == fixtures.sourceStreamHashes["a"])
            for kind in ["v", "a"] {
                let decoded = try Tools.frameHashes(url, "0:\(kind)")
                #expect(!decoded.isEmpty)
                let same = decoded == (try Tools.frameHashes(fixtures.source, "0:\(kind)"))
                #expect(same, "decoded \(kind) frames differ from the source's")
            }
            try checkStructure(output.bytes, inits)
        }

        /// The same mux streamed through a pipe into an ffmpeg process, as `--play` feeds a player.
        @Test func muxedOutputStreamsThroughAPipe() throws {
            let fixtures = try MediaFixtures.get()
            let (inits, sources) = try sources([(fixtures.shakaVideo, MediaFixtures.shakaKey),
                                                (fixtures.shakaAudio, MediaFixtures.shakaKey)])
            let muxer = try FragmentedMP4Muxer(components: inits)
            let pipe = Pipe()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Tools.ffmpeg)
            process.arguments = ["-v", "error", "-i", "pipe:0", "-map", "0", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]
            let outURL = fixtures.directory.appendingPathComponent("pipe-\(UUID().uuidString).txt")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            let out = try FileHandle(forWritingTo: outURL)
            process.standardInput = pipe
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            try muxer.stream(sources, to: FileHandleOutput(pipe.fileHandleForWriting))
            try pipe.fileHandleForWriting.close()
            process.waitUntilExit()
            try out.close()
            #expect(process.terminationStatus == 0)
            let text = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
            #expect(text.contains("v,\(fixtures.sourceStreamHashes["v"] ?? "?")"))
            #expect(text.contains("a,\(fixtures.sourceStreamHashes["a"] ?? "?")"))
        }

        @Test func componentsMustHoldOneTrackEach() throws {
            #expect(throws: MediaError.self) { try FragmentedMP4Muxer(components: []) }
            let fixtures = try MediaFixtures.get()
            let clear = try InitSegmentRewriter.rewrite(try fixtures.shakaVideo.initBytes())
            let muxer = try FragmentedMP4Muxer(components: [clear])
            #expect(throws: MediaError.self) { try muxer.stream([], to: MemoryOutput()) }
        }

        @Test func rescalingIsExact() {
            #expect(FragmentedMP4Muxer.rescale(90_000, from: 90_000, to: 1000) == 1000)
            #expect(FragmentedMP4Muxer.rescale(UInt64.max, from: 1, to: 2) == UInt64.max)
            #expect(FragmentedMP4Muxer.rescale(44_100 * 8, from: 44_100, to: 48_000) == 48_000 * 8)
        }

        /// One moov with a trak and a trex per component (ids 1...n); then moof+mdat pairs whose
        /// sequence numbers increase by one and whose decode times never go back across tracks.
        private func checkStructure(_ bytes: [UInt8], _ inits: [ClearInitSegment]) throws {
            let boxes = try BoxParser.parse(bytes)
            #expect(boxes.first?.boxType == "ftyp")
            let movie = try #require(boxes.compactMap { $0 as? MovieBox }.first)
            #expect(movie.tracks.compactMap { $0.trackHeader?.trackID } == [1, 2])
            #expect(movie.movieExtends?.trackExtends.map(\.trackID) == [1, 2])
            #expect(movie.movieHeader?.nextTrackID == 3)
            let scales = movie.tracks.map { UInt64($0.media?.mediaHeader?.timescale ?? 1) }
            var expected: UInt32 = 1
            var lastTime = 0.0
            var seen = Set<UInt32>()
            let fragments = boxes.compactMap { $0 as? MovieFragmentBox }
            #expect(fragments.count == boxes.filter { $0.boxType == "mdat" }.count)
            for moof in fragments {
                #expect(moof.movieFragmentHeader?.sequenceNumber == expected)
                expected += 1
                #expect(moof.trackFragments.count == 1)
                let traf = try #require(moof.trackFragments.first)
                let id = try #require(traf.trackFragmentHeader?.trackID)
                seen.insert(id)
                let time = Double(traf.decodeTime?.baseMediaDecodeTime ?? 0) / Double(scales[Int(id) - 1])
                #expect(time >= lastTime)
                lastTime = time
            }
            #expect(seen == [1, 2])
        }
    }
}
