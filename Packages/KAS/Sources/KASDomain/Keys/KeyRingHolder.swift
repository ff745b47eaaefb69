import Foundation

/// The key ring a running server uses, swappable as a whole: handlers read `current` (a snapshot
/// they keep for the whole request), an operator's rotation is picked up by `reload()` (on
/// SIGHUP). A failed reload leaves the previous snapshot in place.
public final class KeyRingHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var ring: KeyRing

    public init(_ ring: KeyRing) {
        self.ring = ring
    }

    public var current: KeyRing {
        lock.withLock { ring }
    }

    @discardableResult
    public func reload() throws(KeyRingError) -> KeyRing {
        let previous = current
        // The key-encryption key the ring was opened with opens the reloaded one too.
        let fresh = try KeyRing.load(dataDirectory: previous.dataDirectory, sealKey: previous.sealKey)
        lock.withLock { ring = fresh }
        return fresh
    }
}
