import Foundation
import KASObservability
import Synchronization

/// Keeps the discovered issuers' key sets fresh off the request path: one background thread that
/// ticks every second, fetching each set when it is due (`DiscoveredKeySet.refreshIfDue`), and
/// the `/metrics` gauges of their age and staleness. `KASApplication` starts it with the first
/// fetch of every set done before the server takes requests, and stops it on close.
package final class KeySetRefresher: Sendable {
    package static let tickSeconds: Double = 1

    package let sets: [DiscoveredKeySet]
    private let clock: @Sendable () -> Date
    /// Which start is current: a thread runs while its own start is; `stop` ends it, and a later
    /// `start` (an application rebuilt on the same verifier) begins a new one.
    private let current = Mutex<Int?>(nil)
    private let starts = Mutex(0)

    package init(sets: [DiscoveredKeySet], clock: @escaping @Sendable () -> Date = { Date() }) {
        self.sets = sets
        self.clock = clock
    }

    /// Attaches the log and metrics, fetches every set once (each within its time limit), then
    /// starts the thread. Does nothing without discovered issuers.
    package func start(sink: (any LogSink)?, metrics: Metrics?) {
        guard !sets.isEmpty else { return }
        let run: Int? = current.withLock { current in
            guard current == nil else { return nil }
            let run = starts.withLock { $0 += 1; return $0 }
            current = run
            return run
        }
        guard let run else { return }
        for set in sets {
            set.attach(sink: sink, metrics: metrics)
            set.refreshIfDue()
        }
        registerGauges(metrics)
        let thread = Thread { [self] in
            while isCurrent(run) {
                Thread.sleep(forTimeInterval: Self.tickSeconds)
                guard isCurrent(run) else { break }
                for set in sets { set.refreshIfDue() }
            }
        }
        thread.name = "kas.key-set-refresher"
        thread.start()
    }

    private func isCurrent(_ run: Int) -> Bool { current.withLock { $0 == run } }

    /// Asks the thread to end after its current tick (a fetch in progress finishes within its limit).
    package func stop() {
        current.withLock { $0 = nil }
    }

    private func registerGauges(_ metrics: Metrics?) {
        guard let metrics else { return }
        metrics.observeGauges("issuer_key_set_age_seconds",
                              help: "Seconds since the issuer's key set was last read from its provider.") { [sets, clock] in
            let now = clock()
            return sets.compactMap { set in
                set.ageSeconds(at: now).map { Metrics.GaugeSample(labels: [("issuer", set.issuer)], value: $0.rounded(.down)) }
            }
        }
        metrics.observeGauges("issuer_key_set_stale",
                              help: "1 while the issuer's key set is past its refresh time (or was never read), else 0.") { [sets, clock] in
            let now = clock()
            return sets.map { Metrics.GaugeSample(labels: [("issuer", $0.issuer)], value: $0.freshness(at: now) == .fresh ? 0 : 1) }
        }
        metrics.observeGauges("issuer_key_set_usable",
                              help: "1 while the issuer's tokens can be verified (key set fresh, or stale within maxStaleSeconds), else 0.") { [sets, clock] in
            let now = clock()
            return sets.map { set in
                let usable = [.fresh, .stale].contains(set.freshness(at: now))
                return Metrics.GaugeSample(labels: [("issuer", set.issuer)], value: usable ? 1 : 0)
            }
        }
    }
}
