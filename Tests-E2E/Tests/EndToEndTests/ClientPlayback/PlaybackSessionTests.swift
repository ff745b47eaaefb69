import Foundation
import Testing
@testable import Client

/// End to end against the built `kas` and `packager`: every decrypted track's ffmpeg streamhash
/// equals the source's, denials and refusals produce no media byte, sessions are ended.
@Suite(.serialized) struct PlaybackSessionTests {
    private func play(_ source: PlaybackSource, token: String, fixture: PlaybackFixture,
                      delegate: RecordingDelegate? = nil) async throws -> (MemoryOutput, PlaybackError?) {
        let output = MemoryOutput()
        let session = PlaybackSession(source: source, configuration: try fixture.configuration(token: token), delegate: delegate)
        do {
            try await session.play(to: output)
            return (output, nil)
        } catch {
            return (output, error)
        }
    }

    private func expectSourceTracks(_ bytes: [UInt8], _ fixture: PlaybackFixture, _ name: String) throws {
        let url = try fixture.write(bytes, name)
        let hashes = try FFmpeg.streamHashes(url.path)
        #expect(hashes["v"] != nil)
        #expect(hashes["v"] == fixture.sourceStreamHashes["v"])
        #expect(hashes["a"] == fixture.sourceStreamHashes["a"])
    }

    @Test func fpsV2PackageFilePlaysBitExactAndEndsItsSessions() async throws {
        let fixture = try PlaybackFixture.get()
        let viewer = try fixture.viewer()
        let delegate = RecordingDelegate()
        let (output, error) = try await play(.packageFile(fixture.packageFile.path), token: viewer.token,
                                             fixture: fixture, delegate: delegate)
        #expect(error == nil)
        try expectSourceTracks(output.bytes, fixture, "file.mp4")
        #expect(delegate.deliveries == [["video", "audio"]])
        #expect(delegate.failures.isEmpty)
        #expect(fixture.sessionCounts(of: viewer).started == 2)
        #expect(fixture.liveSessionCount(of: viewer) == 0)
    }

    @Test func fpsV2PackageOverHTTPRangePlaysBitExact() async throws {
        let fixture = try PlaybackFixture.get()
        let viewer = try fixture.viewer()
        let (output, error) = try await play(.packageURL(fixture.originURL + "/talk.tdf"), token: viewer.token,
                                             fixture: fixture)
        #expect(error == nil)
        try expectSourceTracks(output.bytes, fixture, "range.mp4")
        #expect(fixture.sessionCounts(of: viewer).started == 2)
        #expect(fixture.liveSessionCount(of: viewer) == 0)
    }

    @Test func tdfHLSMasterURLPlaysBitExactWithOneBulkRewrap() async throws {
        let fixture = try PlaybackFixture.get()
        let viewer = try fixture.viewer()
        let delegate = RecordingDelegate()
        let (output, error) = try await play(.tdfHLSMasterURL(fixture.originURL + "/stream/master.m3u8"),
                                             token: viewer.token, fixture: fixture, delegate: delegate)
        #expect(error == nil)
        try expectSourceTracks(output.bytes, fixture, "hls.mp4")
        #expect(delegate.deliveries == [["video", "audio"]])
        // 2 segments × 2 components fit one lookahead window: one rewrap request in all.
        #expect(fixture.kasRequestCount(of: viewer) == 1)
    }

    @Test func tdfHLSSegmentFailingItsHashIsRefusedBeforeDecryption() async throws {
        let fixture = try PlaybackFixture.get()
        let copy = fixture.directory.appendingPathComponent("tampered-stream")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: fixture.tdfHLSDirectory, to: copy)
        let segment = copy.appendingPathComponent("audio-segment1.tdf")
        var bytes = [UInt8](try Data(contentsOf: segment))
        bytes[100] ^= 0x01   // inside 0.payload, the first entry
        try Data(bytes).write(to: segment)
        let (output, error) = try await play(.directory(copy.path), token: fixture.entitledToken, fixture: fixture)
        #expect(error?.code == .integrity)
        #expect(output.bytes.count > 0)   // earlier segments were played; the tampered one was not
        let url = try fixture.write(output.bytes, "tampered.mp4")
        #expect(try FFmpeg.streamHashes(url.path)["a"] != fixture.sourceStreamHashes["a"])
    }

    @Test func unentitledViewerIsDeniedWithNoMediaByteAndNoLiveSession() async throws {
        let fixture = try PlaybackFixture.get()
        let viewer = try fixture.viewer(entitled: false)
        let delegate = RecordingDelegate()
        let (output, error) = try await play(.packageFile(fixture.packageFile.path), token: viewer.token,
                                             fixture: fixture, delegate: delegate)
        #expect(error?.code == .denied)
        #expect(error?.status == 403)
        #expect(output.bytes.isEmpty)
        #expect(delegate.failures.count == 1)
        #expect(delegate.deliveries.isEmpty)
        #expect(fixture.liveSessionCount(of: viewer) == 0)

        let (hlsOutput, hlsError) = try await play(.directory(fixture.tdfHLSDirectory.path), token: viewer.token,
                                                   fixture: fixture)
        #expect(hlsError?.code == .denied)
        #expect(hlsOutput.bytes.isEmpty)
    }

    /// The key service is a closed loopback port: any request would end the playback with a
    /// transport error instead of the admission refusal (other suites share the fixture's KAS, so
    /// counting its log lines would not show that THIS playback sent nothing).
    @Test func admissionRefusalNamesTheCheckAndMakesNoKASRequest() async throws {
        let fixture = try PlaybackFixture.get()
        let closed = PlaybackConfiguration(keyServiceURL: "http://127.0.0.1:1",
                                           credential: try Credential(bearerToken: fixture.entitledToken), client: try HTTPClient())
        func refusal(_ path: String) async -> (MemoryOutput, PlaybackError?) {
            let output = MemoryOutput()
            do {
                try await PlaybackSession(source: .packageFile(path), configuration: closed).play(to: output)
                return (output, nil)
            } catch {
                return (output, error)
            }
        }
        let (output, error) = await refusal(fixture.foreignPackageFile.path)
        #expect(error?.code == .refused, "\(String(describing: error))")
        #expect(error?.check?.isEmpty == false)
        #expect(output.bytes.isEmpty)
        let truncated = fixture.directory.appendingPathComponent("truncated.tdf")
        try Data(try Data(contentsOf: fixture.packageFile).prefix(5000)).write(to: truncated)
        let (_, truncatedError) = await refusal(truncated.path)
        #expect(truncatedError?.code == .refused, "\(String(describing: truncatedError))")
    }

    @Test func playerPlayWritesTheClearFileOnlyWithOutput() throws {
        let fixture = try PlaybackFixture.get()
        let viewer = try fixture.viewer()
        let output = fixture.directory.appendingPathComponent("player.mp4")
        let played = try run(try Tools.player, ["play", fixture.originURL + "/talk.tdf", "--kas", fixture.kasURL,
                                                     "--token", viewer.token, "--output", output.path])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stdout.isEmpty)
        let hashes = try FFmpeg.streamHashes(output.path)
        #expect(hashes["v"] == fixture.sourceStreamHashes["v"])
        #expect(hashes["a"] == fixture.sourceStreamHashes["a"])
        for line in ["session started: video", "key delivered: video", "key delivered: audio", "first clear byte"] {
            #expect(played.stderr.contains(line))
        }
        #expect(!played.stderr.contains(viewer.token))
        #expect(fixture.sessionCounts(of: viewer).started == 2)
        #expect(fixture.liveSessionCount(of: viewer) == 0)

        let hls = try run(try Tools.player, ["play", fixture.originURL + "/stream/master.m3u8", "--kas", fixture.kasURL,
                                                     "--token", fixture.entitledToken])
        #expect(hls.status == 0, "\(hls.stderr)")
        let piped = try fixture.write([UInt8](hls.stdout), "player-stdout.mp4")
        #expect(try FFmpeg.streamHashes(piped.path)["a"] == fixture.sourceStreamHashes["a"])
    }

    @Test func playerPlayRefusalExitsNonZeroNamingTheCheck() throws {
        let fixture = try PlaybackFixture.get()
        let output = fixture.directory.appendingPathComponent("refused.mp4")
        let played = try run(try Tools.player, ["play", fixture.foreignPackageFile.path, "--kas", fixture.kasURL,
                                                     "--token", fixture.entitledToken, "-o", output.path])
        #expect(played.status == 1)
        #expect(played.stderr.contains("refused"))
        // The package is fine; the key service differs, and both URLs are named.
        #expect(played.stderr.contains("the package's key service and --kas differ: the package's key service is "
                                        + "https://kas.elsewhere.example, and the accepted one is \(fixture.kasURL)"),
                "\(played.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func stopWhilePlayingEndsEverySessionAndStopsTheOutput() async throws {
        let fixture = try PlaybackFixture.get()
        let viewer = try fixture.viewer()
        let held = try await HeldPlayback(.packageFile(fixture.packageFile.path),
                                          configuration: try fixture.configuration(token: viewer.token))
        #expect(held.hasStarted)
        #expect(fixture.liveSessionCount(of: viewer) == 2)   // video and audio, live while playing
        await held.session.stop()
        #expect(fixture.liveSessionCount(of: viewer) == 0)
        held.output.open()
        let error = await held.task.value
        #expect(error?.code == .stopped)
        #expect(held.output.writes < 6)   // the init, then at most the fragment in flight
    }
}
