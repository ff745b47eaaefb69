import CMicroHTTPD
import Foundation
import Glibc
import Synchronization

/// The server's defences against connection floods, where libmicrohttpd 0.9.75 has none: it
/// only closes a connection that is idle, so a client dripping one header byte every few seconds
/// holds its slot for ever, and its per-address limit counts sockets the client already closed.
///
/// - **Request deadline.** A request's line, headers and body must have arrived within
///   `requestDeadline` of the connection opening, or of the previous response on a keep-alive
///   connection (so an idle keep-alive connection is closed after that long too). A watchdog
///   thread shuts down the socket of a connection past its deadline; libmicrohttpd then sees
///   the end of the stream and closes it. While a response is being produced or sent there is
///   no deadline (the idle timeout still applies).
/// - **Counting open connections.** Connections are counted from acceptance to
///   libmicrohttpd's close notification. At the per-address limit, a connection whose client
///   has already closed its side (TCP CLOSE-WAIT) and which has no request in progress is not
///   counted: it is gone, libmicrohttpd just has not reaped it yet.
/// - **Reserve.** The last `reservedConnections` slots go only to addresses holding fewer
///   than `reserveAddressBound` connections, so during a flood from a few addresses an
///   uninvolved client still gets in.
/// - **Trusted proxies.** A trusted proxy carries every viewer behind it: it has no per-address
///   cap and may use the reserve. Its requests are counted per forwarded client instead
///   (`beginForwarded`), with the same per-address cap on requests in progress.
///
/// Threads: the accept policy and the notifications run on libmicrohttpd's worker threads, the
/// watchdog on its own; all state is under one lock. libmicrohttpd calls the close notification
/// before it closes the socket, so a socket shut down under the lock is always still this
/// connection's (never a reused descriptor).
final class ConnectionGuard: @unchecked Sendable {
    struct Limits {
        var maxConnections: Int
        var maxConnectionsPerAddress: Int
        var reservedConnections: Int
        var requestDeadline: Duration
    }

    /// Addresses holding fewer connections than this may take a reserved slot: a player needs
    /// one or two, a browser a handful.
    static let reserveAddressBound = 4
    /// How often the watchdog looks for connections past their deadline.
    static let watchdogInterval: Duration = .milliseconds(100)

    private struct Tracked {
        let descriptor: Int32
        let address: String
        /// When the request being received must be complete; nil while answering.
        var deadline: ContinuousClock.Instant?
        var shutDown = false
    }

    let limits: Limits
    let proxies: TrustedProxies
    private let lock = NSLock()
    private var connections: [OpaquePointer: Tracked] = [:]
    private var byAddress: [String: Set<OpaquePointer>] = [:]
    /// Accepted by the policy, not yet announced by libmicrohttpd, by accepting thread. A worker
    /// thread announces a connection right after accepting it, so a reservation still here at its
    /// thread's next accept belongs to a connection that failed in between.
    private var reservations: [pthread_t: String] = [:]
    private var reservedByAddress: [String: Int] = [:]
    private var forwardedInFlight: [String: Int] = [:]
    private let stopping = Atomic<Bool>(false)
    private let watchdogDone = DispatchSemaphore(value: 0)
    private var watchdogRunning = false

    /// Connections refused by the policy, and connections closed at their deadline.
    let refusedConnections = Atomic<Int>(0)
    let expiredRequests = Atomic<Int>(0)

    init(limits: Limits, proxies: TrustedProxies) {
        self.limits = limits
        self.proxies = proxies
    }

    // MARK: Watchdog

    func startWatchdog() {
        watchdogRunning = true
        let thread = Thread { [self] in
            let interval = UInt32(Self.watchdogInterval.components.attoseconds / 1_000_000_000_000)
            while !stopping.load(ordering: .acquiring) {
                usleep(interval)
                expireLateRequests(now: .now)
            }
            watchdogDone.signal()
        }
        thread.name = "kas-connection-watchdog"
        thread.start()
    }

    func stopWatchdog() {
        guard watchdogRunning else { return }
        watchdogRunning = false
        stopping.store(true, ordering: .releasing)
        watchdogDone.wait()
    }

    private func expireLateRequests(now: ContinuousClock.Instant) {
        lock.withLock {
            for (connection, tracked) in connections {
                guard !tracked.shutDown, let deadline = tracked.deadline, deadline <= now else { continue }
                // The socket is still this connection's: libmicrohttpd closes it only after the
                // close notification, which waits for this lock.
                shutdown(tracked.descriptor, Int32(SHUT_RDWR))
                connections[connection]?.shutDown = true
                expiredRequests.add(1, ordering: .relaxed)
            }
        }
    }

    // MARK: libmicrohttpd callbacks

    /// The accept policy: whether a new connection from `address` is taken.
    func admit(address: String) -> Bool {
        let admitted = lock.withLock { () -> Bool in
            let thread = pthread_self()
            if let stale = reservations.removeValue(forKey: thread) { releaseReservation(stale) }
            let total = connections.count + reservations.count
            guard total < limits.maxConnections else { return false }
            if !proxies.contains(address) {
                var held = heldConnections(address)
                if held >= limits.maxConnectionsPerAddress { held = openConnections(address) }
                guard held < limits.maxConnectionsPerAddress else { return false }
                let free = limits.maxConnections - total
                guard free > limits.reservedConnections || held < Self.reserveAddressBound else { return false }
            }
            reservations[thread] = address
            reservedByAddress[address, default: 0] += 1
            return true
        }
        if !admitted { refusedConnections.add(1, ordering: .relaxed) }
        return admitted
    }

    /// libmicrohttpd took the connection the policy admitted on this thread.
    func started(_ connection: OpaquePointer, descriptor: Int32, address: String) {
        lock.withLock {
            if let reserved = reservations.removeValue(forKey: pthread_self()) { releaseReservation(reserved) }
            connections[connection] = Tracked(descriptor: descriptor, address: address,
                                              deadline: .now + limits.requestDeadline)
            byAddress[address, default: []].insert(connection)
        }
    }

    func closed(_ connection: OpaquePointer) {
        lock.withLock {
            guard let tracked = connections.removeValue(forKey: connection) else { return }
            byAddress[tracked.address]?.remove(connection)
            if byAddress[tracked.address]?.isEmpty == true { byAddress[tracked.address] = nil }
        }
    }

    /// A response is on its way: no deadline until it has been sent.
    func answering(_ connection: OpaquePointer) {
        lock.withLock { connections[connection]?.deadline = nil }
    }

    /// The response was sent (or the request abandoned): the next request's clock starts.
    func requestFinished(_ connection: OpaquePointer) {
        lock.withLock {
            guard connections[connection] != nil else { return }
            connections[connection]?.deadline = .now + limits.requestDeadline
        }
    }

    // MARK: Forwarded clients

    /// Counts a request of `client` (forwarded by a trusted proxy) in progress; false when the
    /// client already has the per-address number of requests in progress.
    func beginForwarded(client: String) -> Bool {
        lock.withLock {
            let current = forwardedInFlight[client, default: 0]
            guard current < limits.maxConnectionsPerAddress else { return false }
            forwardedInFlight[client] = current + 1
            return true
        }
    }

    func endForwarded(client: String) {
        lock.withLock {
            let remaining = forwardedInFlight[client, default: 1] - 1
            forwardedInFlight[client] = remaining > 0 ? remaining : nil
        }
    }

    // MARK: Counting (under the lock)

    private func heldConnections(_ address: String) -> Int {
        (byAddress[address]?.count ?? 0) + reservedByAddress[address, default: 0]
    }

    /// Like `heldConnections`, without the connections whose client has gone while nothing is
    /// being answered on them.
    private func openConnections(_ address: String) -> Int {
        var open = reservedByAddress[address, default: 0]
        for connection in byAddress[address] ?? [] {
            guard let tracked = connections[connection] else { continue }
            let answering = tracked.deadline == nil && !tracked.shutDown
            if answering || mediadrm_tcp_peer_closed(tracked.descriptor) == 0 { open += 1 }
        }
        return open
    }

    private func releaseReservation(_ address: String) {
        let remaining = reservedByAddress[address, default: 1] - 1
        reservedByAddress[address] = remaining > 0 ? remaining : nil
    }
}
