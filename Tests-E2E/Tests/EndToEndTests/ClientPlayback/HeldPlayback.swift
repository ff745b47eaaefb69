@testable import Client
import Foundation

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
