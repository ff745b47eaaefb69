import Foundation

/// Serves the licences of one playback's component one at a time on this node.
///
/// A licence URL call (ClearKey or FairPlay) starts the component's media session of the
/// playback, which ends the one the previous call started (a playback holds one live session per
/// component), then makes its key request on it. Two calls of the same URL at once (a CDM that
/// asks for the video and audio keys in parallel, a player that retries) would otherwise race:
/// the second start ends the first call's session before its key request, which is refused
/// `session_invalid`. Calls of different playbacks never wait on each other beyond sharing one of
/// `stripes` locks. Across several KAS nodes on one store the same race remains possible, and
/// is answered 403 `session_invalid`; a CDM asks again (docs/delivery.md).
final class LicenseSerializer: Sendable {
    private let locks: [NSLock]

    init(stripes: Int = 64) {
        locks = (0..<max(1, stripes)).map { _ in NSLock() }
    }

    /// Runs `body` holding the lock of `playbackID`'s `component`.
    func serialized<T, E: Error>(playbackID: String, component: String, _ body: () throws(E) -> T) throws(E) -> T {
        let lock = locks[stripe(playbackID + "\u{0}" + component)]
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func stripe(_ key: String) -> Int {
        // FNV-1a over the key's bytes.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(locks.count))
    }
}
