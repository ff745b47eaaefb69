import Foundation
import MediaDRMCrypto
import Testing
@testable import Client

/// The Client's decryptor and muxer on the project's own fps-v2 packager output (ClientTests
/// check them on Shaka Packager's): keys unwrapped from the manifest with the openssl CLI.
@Suite struct ProjectPackageTests {
    /// Every component decrypts to the source's samples (ffmpeg streamhash of the copied packets).
    @Test func projectPackagerOutputDecryptsToTheSourceSamples() throws {
        let package = try ProjectPackage.make()
        for (component, kind) in [("video", "v"), ("audio", "a")] {
            let key = try #require(package.keys[component])
            let initBytes = [UInt8](try Data(contentsOf: package.directory.appendingPathComponent("\(component)-init.mp4")))
            let clear = try InitSegmentRewriter.rewrite(initBytes)
            let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: key))
            var out = try clear.serializedBytes()
            for index in 0 ..< package.segmentCount {
                let url = package.directory.appendingPathComponent("\(component)-segment\(index).m4s")
                out += try decryptor.clearSegment([UInt8](try Data(contentsOf: url)))
            }
            let url = try package.write(out, "fpsv2-clear-\(component).mp4")
            #expect(try FFmpeg.streamHashes(url.path)[kind] == package.sourceStreamHashes[kind])
        }
    }

    /// Both components have track_ID 1 and their own keys; the mux renumbers them and keeps
    /// every sample.
    @Test func projectPackageComponentsMuxWithDistinctTrackIDs() throws {
        let package = try ProjectPackage.make()
        var inits: [ClearInitSegment] = []
        var sources: [any MediaFragmentSource] = []
        for component in ["video", "audio"] {
            let initURL = package.directory.appendingPathComponent("\(component)-init.mp4")
            let clear = try InitSegmentRewriter.rewrite([UInt8](try Data(contentsOf: initURL)))
            #expect(clear.trackIDs == [1])
            let key = try #require(package.keys[component])
            let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: key))
            let paths = (0 ..< package.segmentCount).map {
                package.directory.appendingPathComponent("\(component)-segment\($0).m4s").path
            }
            inits.append(clear)
            sources.append(DecryptingSegmentSource(decryptor: decryptor, segmentPaths: paths))
        }
        let muxer = try FragmentedMP4Muxer(components: inits)
        let output = MemoryOutput()
        try muxer.stream(sources, to: output)
        let url = try package.write(output.bytes, "fpsv2-muxed.mp4")
        let hashes = try FFmpeg.streamHashes(url.path)
        #expect(hashes["v"] == package.sourceStreamHashes["v"])
        #expect(hashes["a"] == package.sourceStreamHashes["a"])
        let problems = try MuxedStructure.problems(output.bytes, trackCount: 2)
        #expect(problems.isEmpty, "\(problems)")
    }
}
