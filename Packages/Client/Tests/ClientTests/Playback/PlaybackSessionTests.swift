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
        let hashes = try Tools.streamHashes(url)
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
        #expect(try Tools.streamHashes(url)["a"] != fixture.sourceStreamHashes["a"])
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
        let run = try Tools.run(try Tools.player(), ["play", fixture.originURL + "/talk.tdf", "--kas", fixture.kasURL,
                                                     "--token", viewer.token, "--output", output.path])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stdout.isEmpty)
        let hashes = try Tools.streamHashes(output)
        #expect(hashes["v"] == fixture.sourceStreamHashes["v"])
        #expect(hashes["a"] == fixture.sourceStreamHashes["a"])
        for line in ["session started: video", "key delivered: video", "key delivered: audio", "first clear byte"] {
            #expect(run.stderrText.contains(line))
        }
        #expect(!run.stderrText.contains(viewer.token))
        #expect(fixture.sessionCounts(of: viewer).started == 2)
        #expect(fixture.liveSessionCount(of: viewer) == 0)

        let hls = try Tools.run(try Tools.player(), ["play", fixture.originURL + "/stream/master.m3u8", "--kas", fixture.kasURL,
                                                     "--token", fixture.entitledToken])
        #expect(hls.status == 0, "\(hls.stderrText)")
        let piped = try fixture.write([UInt8](hls.stdout), "player-stdout.mp4")
        #expect(try Tools.streamHashes(piped)["a"] == fixture.sourceStreamHashes["a"])
    }

    @Test func playerPlayRefusalExitsNonZeroNamingTheCheck() throws {
        let fixture = try PlaybackFixture.get()
        let output = fixture.directory.appendingPathComponent("refused.mp4")
        let run = try Tools.run(try Tools.player(), ["play", fixture.foreignPackageFile.path, "--kas", fixture.kasURL,
                                                     "--token", fixture.entitledToken, "-o", output.path])
        #expect(run.status == 1)
        #expect(run.stderrText.contains("refused"))
        // The package is fine; the key service differs, and both URLs are named.
        #expect(run.stderrText.contains("the package's key service and --kas differ: the package's key service is "
                                        + "https://kas.elsewhere.example, and the accepted one is \(fixture.kasURL)"),
                "\(run.stderrText)")
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

/// A playback that holds its media sessions: it has its keys and is blocked at its first write
/// until `release()`, which stops it and answers how it ended.
struct HeldPlayback {
    let session: PlaybackSession
    let output = GatedOutput()
    let task: Task<PlaybackError?, Never>

    /// Whether the playback reached its first write (false only past `GatedOutput.started`'s bound).
    let hasStarted: Bool

    /// Starts the playback and waits for its first write (an event, bounded far past any start).
    init(_ source: PlaybackSource, configuration: PlaybackConfiguration) async throws {
        let session = PlaybackSession(source: source, configuration: configuration)
        let output = self.output
        self.session = session
        task = Task { () -> PlaybackError? in
            do throws(PlaybackError) {
                try await session.play(to: output)
            } catch {
                return error
            }
            return nil
        }
        hasStarted = await output.started()
    }

    func release() async -> PlaybackError? {
        await session.stop()
        output.open()
        return await task.value
    }
}

/// Holds the first write until `open()`, so a test can act while a playback is mid-output.
final class GatedOutput: MediaOutput, @unchecked Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let firstWrite = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var count = 0

    var writes: Int { lock.withLock { count } }

    func open() { gate.signal() }

    /// Returns when the first write has arrived (true), or false after `timeout`, a bound far past
    /// any playback start so that only a playback that never writes reaches it. The wait runs on a
    /// thread of its own, never blocking the cooperative pool the playback needs.
    func started(timeout: Duration = .seconds(120)) async -> Bool {
        let seconds = Double(timeout.components.seconds)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { [firstWrite] in
                let arrived = firstWrite.wait(timeout: .now() + seconds) == .success
                if arrived { firstWrite.signal() }   // later callers see it too
                continuation.resume(returning: arrived)
            }
        }
    }

    func write(_ bytes: [UInt8]) throws(MediaError) {
        let first = lock.withLock { () -> Bool in
            count += 1
            return count == 1
        }
        if first {
            firstWrite.signal()
            gate.wait()
        }
    }
}
