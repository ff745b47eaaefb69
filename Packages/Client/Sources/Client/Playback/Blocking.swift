import Foundation

/// Runs blocking work (file and Range reads, the synchronous muxer writing to a pipe) on its own
/// thread, so the cooperative pool stays free for key renewals and heartbeats.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws(PlaybackError) -> T) async throws(PlaybackError) -> T {
        let result: Result<T, PlaybackError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(PlaybackError) -> T in try work() })
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        return try result.get()
    }
}
