import Foundation
import MediaDRMFPSv2
import MediaDRMZIP
import Testing
@testable import Client

/// fps-v2 over HTTP: admission reads the central directory and the metadata entries only (each
/// segment's local header is verified when the segment is read), so its Range requests do not
/// grow with the segment count.
enum LazyLocalHeaders {
    /// Range requests the origin saw for `path`.
    static func hits(_ fixture: PlaybackFixture, _ path: String) throws -> Int {
        let response = try HTTPClient().sendSynchronously(TransportRequest(url: fixture.originURL + "/__hits"))
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let hits = try #require(object["hits"] as? [String: Any])
        return (hits[path] as? NSNumber)?.intValue ?? 0
    }

    /// The fixture clip packaged with short segments (a package with many entries).
    static func manySegmentPackage(_ fixture: PlaybackFixture) throws -> String {
        let name = "many.tdf"
        let target = fixture.www.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: target.path) { return "/" + name }
        let clip = fixture.directory.appendingPathComponent("short-gop.mp4")
        try run(Tools.ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=25",
                               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4",
                               "-c:v", "libx264", "-g", "5", "-b:v", "2M", "-pix_fmt", "yuv420p", "-c:a", "aac",
                               "-shortest", clip.path]).check("ffmpeg short-gop clip")
        let policy = fixture.directory.appendingPathComponent("policy.json")
        try run(try Tools.packager, ["package", clip.path, "-o", target.path, "--kas-url", fixture.kasURL,
                                     "--kas-public-key", fixture.publicKeyFile.path,
                                     "--policy", policy.path, "--segment-duration", "0.2", "--quiet",
                                     "--classification", Publisher.classification]).check("packager fps-v2 (short segments)")
        return "/" + name
    }

    /// Admission over HTTP in `mode`: (segment count, Range requests the origin saw).
    static func admit(_ fixture: PlaybackFixture, _ path: String,
                      _ mode: FPSv2Admission.Options.LocalHeaders) throws -> (segments: Int, requests: Int, sourceCount: Int) {
        let before = try hits(fixture, path)
        // Small requests, so each local header read in eager mode is a request of its own.
        let range = try HTTPRangeSource(url: fixture.originURL + path, client: HTTPClient(),
                                        options: HTTPRangeSource.Options(minimumRequestBytes: 4096))
        let admitted = try FPSv2Admission.admit(FPSv2Package(archive: range), options: FPSv2Admission.Options(
            acceptedKeyServiceURLs: [fixture.kasURL], localHeaders: mode))
        #expect(admitted.report.isAdmitted)
        return (admitted.segmentCount, try hits(fixture, path) - before, range.requestCount)
    }
}

/// In the serialized playback suite: the origin's hit counts and the KAS's session counts are
/// shared with the other playback tests.
extension PlaybackSessionTests {
    @Test func admissionRangeRequestsDoNotGrowWithTheSegmentCount() throws {
        let fixture = try PlaybackFixture.get()
        let many = try LazyLocalHeaders.manySegmentPackage(fixture)
        let small = try LazyLocalHeaders.admit(fixture, "/talk.tdf", .onRead)
        let large = try LazyLocalHeaders.admit(fixture, many, .onRead)
        #expect(large.segments >= 10, "\(large.segments) segments per component")
        let size = try #require(try FileManager.default.attributesOfItem(
            atPath: fixture.www.appendingPathComponent(String(many.dropFirst())).path)[.size] as? NSNumber)
        #expect(size.intValue > 128 << 10, "the package is larger than the tail the opening request reads")
        #expect(large.segments > small.segments)
        #expect(small.requests == small.sourceCount && large.requests == large.sourceCount)
        #expect(small.requests <= 6, "\(small.requests) requests for \(small.segments) segments")
        #expect(large.requests <= 6, "\(large.requests) requests for \(large.segments) segments")
        // Eager admission (inspect, file sources) reads every local header: it grows.
        let eager = try LazyLocalHeaders.admit(fixture, many, .eager)
        #expect(eager.requests >= large.segments && eager.requests > 3 * large.requests,
                "eager: \(eager.requests) requests, onRead: \(large.requests), \(large.segments) segments per component")
        print("admission Range requests: onRead \(small.requests) (\(small.segments) segments), \(large.requests) (\(large.segments) segments); eager \(eager.requests)")
    }

    @Test func manySegmentPackageOverHTTPPlaysBitIdenticalToTheFile() async throws {
        let fixture = try PlaybackFixture.get()
        let many = try LazyLocalHeaders.manySegmentPackage(fixture)
        let configuration = try fixture.configuration(token: fixture.entitledToken)
        let overHTTP = MemoryOutput()
        try await PlaybackSession(source: .packageURL(fixture.originURL + many), configuration: configuration).play(to: overHTTP)
        let fromFile = MemoryOutput()
        let file = fixture.www.appendingPathComponent(String(many.dropFirst())).path
        try await PlaybackSession(source: .packageFile(file), configuration: configuration).play(to: fromFile)
        #expect(!overHTTP.bytes.isEmpty)
        #expect(overHTTP.bytes == fromFile.bytes)
    }

    @Test func segmentLocalHeaderThatDisagreesFailsPlaybackWithTheHeaderCheck() async throws {
        let fixture = try PlaybackFixture.get()
        var bytes = [UInt8](try Data(contentsOf: fixture.packageFile))
        // The last video segment's local header CRC-32 (offset 14 in the header).
        let reader = try ZIPReader(data: Data(bytes))
        let segment = try #require(reader.entries.filter { $0.name.hasPrefix("video-segment") }.max { $0.name < $1.name })
        bytes[Int(segment.localHeaderOffset) + 14] ^= 0xFF
        let name = "bad-segment-header.tdf"
        try Data(bytes).write(to: fixture.www.appendingPathComponent(name))
        // Admitted over HTTP (the header is deferred), refused when the segment is read.
        let viewer = try fixture.viewer()
        let output = MemoryOutput()
        let session = PlaybackSession(source: .packageURL(fixture.originURL + "/" + name),
                                      configuration: try fixture.configuration(token: viewer.token))
        var failure: PlaybackError?
        do { try await session.play(to: output) } catch { failure = error }
        #expect(failure?.code == .refused, "\(String(describing: failure))")
        #expect(failure?.check == AdmissionCheck.headersAgree.rawValue)
        // The same package as a file is refused at admission by the same check.
        let file = PlaybackSession(source: .packageFile(fixture.www.appendingPathComponent(name).path),
                                   configuration: try fixture.configuration(token: viewer.token))
        var fileFailure: PlaybackError?
        do { try await file.play(to: MemoryOutput()) } catch { fileFailure = error }
        #expect(fileFailure?.check == AdmissionCheck.headersAgree.rawValue)
        #expect(fixture.liveSessionCount(of: viewer) == 0)
    }
}
