import Foundation

/// Runs blocking work (file and Range reads, the synchronous muxer writing to a pipe) on its own
/// thread, so the cooperative pool stays free for key renewals and heartbeats. Cancelling the
/// awaiting task ends the call with `stopped` whenever it arrives (`ThreadBridge`): a Range read
/// or key request the work makes over `HTTPClient` on that thread is aborted with it.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws(PlaybackError) -> T) async throws(PlaybackError) -> T {
        try await ThreadBridge.run(name: "mediadrm.playback", stackSize: 8 << 20,
                                   cancelled: { PlaybackError(.stopped, "the playback task was cancelled") }) {
            Result { () throws(PlaybackError) -> T in try work() }
        }.get()
    }
}
