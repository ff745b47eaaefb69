import Foundation
@testable import Client

/// Records what a `ContentKeySessionDelegate` is told.
final class RecordingDelegate: ContentKeySessionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var delivered: [[String]] = []
    private var failed: [PlaybackError] = []

    func onKeyDelivered(components: [String]) { lock.withLock { delivered.append(components) } }
    func onKeyFailed(error: PlaybackError) { lock.withLock { failed.append(error) } }

    var deliveries: [[String]] { lock.withLock { delivered } }
    var failures: [PlaybackError] { lock.withLock { failed } }
}
