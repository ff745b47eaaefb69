import Client
import Synchronization

/// What a playback's `ContentKeySessionDelegate` is told: the components of each key delivery,
/// and each failure.
final class RecordingDelegate: ContentKeySessionDelegate, Sendable {
    private let told = Mutex<(deliveries: [[String]], failures: [PlaybackError])>(([], []))

    func onKeyDelivered(components: [String]) { told.withLock { $0.deliveries.append(components) } }
    func onKeyFailed(error: PlaybackError) { told.withLock { $0.failures.append(error) } }

    var deliveries: [[String]] { told.withLock { $0.deliveries } }
    var failures: [PlaybackError] { told.withLock { $0.failures } }
}
