import Foundation
import Synchronization

/// Process metrics in the Prometheus text exposition format (version 0.0.4): HTTP requests by
/// route, method and status, a latency histogram by route, and named counters other components
/// add (key decisions, rate-limit refusals). Whoever builds the app serves `render()` at `/metrics`.
public final class Metrics: Sendable {
    public static let defaultLatencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct Histogram {
        var bucketCounts: [Int]
        var sum: Double = 0
        var count: Int = 0
    }

    private struct CounterKey: Hashable {
        let name: String
        let labels: [String]   // alternating name, value: arrays of pairs are not Hashable
    }

    /// A counter another component owns, read when the text is rendered.
    private struct ObservedCounter {
        let help: String
        let value: @Sendable () -> Int
    }

    /// A family of gauges another component owns, read when the text is rendered.
    private struct ObservedGauges {
        let help: String
        let values: @Sendable () -> [GaugeSample]
    }

    private struct State {
        var gauges: [String: ObservedGauges] = [:]
        var requests: [RequestKey: Int] = [:]
        var latency: [String: Histogram] = [:]
        var counters: [CounterKey: Int] = [:]
        var help: [String: String] = [:]
        var observed: [String: ObservedCounter] = [:]
    }

    public let namespace: String
    public let latencyBuckets: [Double]
    private let state = Mutex(State())

    public init(namespace: String = "kas", latencyBuckets: [Double] = Metrics.defaultLatencyBuckets) {
        precondition(Self.isValidName(namespace), "bad metric namespace")
        self.namespace = namespace
        self.latencyBuckets = latencyBuckets.sorted()
    }

    /// Counts one finished request. `route` is a route pattern (or `unmatched`): label values stay
    /// bounded by the route table, never by what clients put in paths.
    /// `method` is a loggable method name (a known one, else `OTHER`), `status` the status code.
    public func recordRequest(route: String, method: String, status: Int, latency: Duration) {
        let seconds = Double(latency.components.seconds) + Double(latency.components.attoseconds) / 1e18
        let key = RequestKey(route: route, method: method, status: status)
        let bucketIndex = latencyBuckets.firstIndex { seconds <= $0 }
        let bucketCount = latencyBuckets.count
        state.withLock { state in
            state.requests[key, default: 0] += 1
            var histogram = state.latency[route] ?? Histogram(bucketCounts: Array(repeating: 0, count: bucketCount))
            if let bucketIndex { histogram.bucketCounts[bucketIndex] += 1 }
            histogram.sum += seconds
            histogram.count += 1
            state.latency[route] = histogram
        }
    }

    /// Adds to the counter `<namespace>_<name>` with these labels. Label values must come from a
    /// bounded set chosen by the server (results, reasons), never from request data.
    public func increment(_ name: String, help: String, labels: [(String, String)] = [], by amount: Int = 1) {
        precondition(Self.isValidName(name) && labels.allSatisfy { Self.isValidName($0.0) }, "bad metric name")
        let key = CounterKey(name: name, labels: labels.flatMap { [$0.0, $0.1] })
        state.withLock { state in
            state.counters[key, default: 0] += amount
            state.help[name] = help
        }
    }

    /// Renders the counter `<namespace>_<name>` (no labels) from `value`, read at each render:
    /// for counts another component keeps itself (the HTTP server's connection guard). A second
    /// call with the same name replaces the first.
    public func observeCounter(_ name: String, help: String, value: @escaping @Sendable () -> Int) {
        precondition(Self.isValidName(name), "bad metric name")
        state.withLock { $0.observed[name] = ObservedCounter(help: help, value: value) }
    }

    /// One gauge of a family: its labels (a bounded set the server chose, such as the configured
    /// issuers) and its value now.
    public struct GaugeSample: Sendable {
        public var labels: [(String, String)]
        public var value: Double

        public init(labels: [(String, String)], value: Double) {
            self.labels = labels
            self.value = value
        }
    }

    /// Renders the gauges `<namespace>_<name>` from `values`, read at each render: for states
    /// another component keeps (an issuer's key set age). A second call with the same name
    /// replaces the first.
    public func observeGauges(_ name: String, help: String, values: @escaping @Sendable () -> [GaugeSample]) {
        precondition(Self.isValidName(name), "bad metric name")
        state.withLock { $0.gauges[name] = ObservedGauges(help: help, values: values) }
    }

    /// The current value of a counter added with `increment` (0 when never incremented).
    public func counterValue(_ name: String, labels: [(String, String)] = []) -> Int {
        let key = CounterKey(name: name, labels: labels.flatMap { [$0.0, $0.1] })
        return state.withLock { $0.counters[key] ?? 0 }
    }

    /// The number of requests recorded for a route and status (all methods).
    public func requestCount(route: String, status: Int) -> Int {
        state.withLock { state in
            state.requests.filter { $0.key.route == route && $0.key.status == status }.values.reduce(0, +)
        }
    }

    /// The exposition text; series sorted so equal states render equal text.
    public func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        let requests = "\(namespace)_http_requests_total"
        out += "# HELP \(requests) HTTP requests by route pattern, method and status.\n"
        out += "# TYPE \(requests) counter\n"
        let requestKeys = snapshot.requests.keys.sorted {
            ($0.route, $0.method, $0.status) < ($1.route, $1.method, $1.status)
        }
        for key in requestKeys {
            let labels = Self.labels([("route", key.route), ("method", key.method), ("status", String(key.status))])
            out += "\(requests)\(labels) \(snapshot.requests[key] ?? 0)\n"
        }

        let duration = "\(namespace)_http_request_duration_seconds"
        out += "# HELP \(duration) HTTP request latency by route pattern.\n"
        out += "# TYPE \(duration) histogram\n"
        for route in snapshot.latency.keys.sorted() {
            guard let histogram = snapshot.latency[route] else { continue }
            var cumulative = 0
            for (bound, count) in zip(latencyBuckets, histogram.bucketCounts) {
                cumulative += count
                out += "\(duration)_bucket\(Self.labels([("route", route), ("le", Self.format(bound))])) \(cumulative)\n"
            }
            out += "\(duration)_bucket\(Self.labels([("route", route), ("le", "+Inf")])) \(histogram.count)\n"
            out += "\(duration)_sum\(Self.labels([("route", route)])) \(Self.format(histogram.sum))\n"
            out += "\(duration)_count\(Self.labels([("route", route)])) \(histogram.count)\n"
        }

        let counterNames = Set(snapshot.counters.keys.map(\.name)).sorted()
        for name in counterNames {
            let full = "\(namespace)_\(name)"
            out += "# HELP \(full) \(Self.escapeHelp(snapshot.help[name] ?? ""))\n"
            out += "# TYPE \(full) counter\n"
            let keys = snapshot.counters.keys.filter { $0.name == name }.sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
            for key in keys {
                var pairs: [(String, String)] = []
                var index = 0
                while index + 1 < key.labels.count {
                    pairs.append((key.labels[index], key.labels[index + 1]))
                    index += 2
                }
                out += "\(full)\(Self.labels(pairs)) \(snapshot.counters[key] ?? 0)\n"
            }
        }
        for name in snapshot.observed.keys.sorted() {
            guard let counter = snapshot.observed[name] else { continue }
            let full = "\(namespace)_\(name)"
            out += "# HELP \(full) \(Self.escapeHelp(counter.help))\n# TYPE \(full) counter\n\(full) \(counter.value())\n"
        }
        for name in snapshot.gauges.keys.sorted() {
            guard let family = snapshot.gauges[name] else { continue }
            let full = "\(namespace)_\(name)"
            out += "# HELP \(full) \(Self.escapeHelp(family.help))\n# TYPE \(full) gauge\n"
            for sample in family.values() {
                out += "\(full)\(Self.labels(sample.labels)) \(Self.format(sample.value))\n"
            }
        }
        return out
    }

    private static func labels(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        return "{" + pairs.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
    }

    private static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    private static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
        }
    }
}
