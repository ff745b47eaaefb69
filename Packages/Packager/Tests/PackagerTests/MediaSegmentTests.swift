import MediaDRMCENC
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMMP4
import Testing
@testable import Packager

/// Writes one component's init and segments from a source with a given key, to check the bytes
/// against ffmpeg without the package around them.
func writeComponent(_ stream: ComponentStream, plan: SegmentPlan, key: [UInt8], iv: [UInt8]) throws -> Data {
    let kid = [UInt8](repeating: 0x11, count: 16)
    var data = Data(stream.kind == .video
        ? try InitSegment.video(stream.track, keyID: kid, constantIV: iv)
        : try InitSegment.audio(stream.track, keyID: kid, constantIV: iv))
    let cipher = try CBCSSampleCipher(key: SecretKey(data: key), constantIV: iv,
                                      pattern: stream.kind == .video ? .video : .fullSample)
    for (n, segment) in plan.segments.enumerated() {
        let bytes = try stream.bytes(segment: segment, index: n, cipher: cipher)
        #expect(bytes.count == (try stream.size(segment: segment, index: n)))
        data += bytes
    }
    return data
}

@Suite struct MediaSegmentTests {
    @Test func standardClipDecryptsToTheSourceStreams() throws {
        let path = try TestMedia.standard()
        let movie = try SourceMovie(path: path)
        let videoTrack = try #require(movie.tracks.first { $0.kind == .video })
        let audioTrack = try #require(movie.tracks.first { $0.kind == .audio })
        let video = try ComponentStream.video(movie, track: videoTrack)
        let audio = ComponentStream.audio(movie, track: audioTrack)
        let plan = try SegmentPlan(video: videoTrack, isIDR: video.isIDR, audio: audioTrack, targetDuration: 6)
        #expect(plan.segments.count == 3)
        #expect(plan.durations.map { ($0 * 1000).rounded() } == [6000, 6000, 1000])
        #expect(plan.segments.last?.video.upperBound == videoTrack.samples.count)
        #expect(plan.segments.last?.audio.upperBound == audioTrack.samples.count)
        let key = [UInt8](0 ..< 16)
        let iv = [UInt8](repeating: 0xA5, count: 16)
        for stream in [video, audio] {
            let data = try writeComponent(stream, plan: plan, key: key, iv: iv)
            let map = stream.kind == .video ? "0:v" : "0:a"
            let decrypted = try FFmpeg.streamHash(decrypting: data, keyHex: Hex.encode(key))
            #expect(decrypted == (try FFmpeg.streamHash(path, map: map)))
            let frames = try FFmpeg.frameHashes(decrypting: data, keyHex: Hex.encode(key))
            #expect(frames.count > 0)
            #expect(frames == (try FFmpeg.frameHashes(path, map: map)), "\(stream.kind) frames differ")
            // The wrong key must not give the source back.
            let wrong = try? FFmpeg.streamHash(decrypting: data, keyHex: String(repeating: "00", count: 16))
            #expect(wrong != (try FFmpeg.streamHash(path, map: map)))
        }
    }
}
