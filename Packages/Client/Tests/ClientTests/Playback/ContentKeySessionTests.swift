import MediaDRMCrypto
import Foundation
import MediaDRMJSON
import MediaDRMTDF
import Testing
@testable import Client

/// A clock that moves only when the test says so.
final class ManualClock: PlaybackClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Double = 0
    private var nextID = 0
    private var sleepers: [Int: (deadline: Double, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var cancelled = Set<Int>()

    func now() -> Double { lock.withLock { current } }

    var sleeperCount: Int { lock.withLock { sleepers.count } }
    var deadlines: [Double] { lock.withLock { sleepers.values.map(\.deadline).sorted() } }

    func sleep(until deadline: Double) async throws {
        let id: Int = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool? = lock.withLock {
                    if cancelled.contains(id) { return false }
                    if deadline <= current { return true }
                    sleepers[id] = (deadline, continuation)
                    return nil
                }
                if resumeNow == true { continuation.resume() }
                if resumeNow == false { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiting = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
                cancelled.insert(id)
                return sleepers.removeValue(forKey: id)?.continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `time` and wakes every sleeper due by then; returns how many it woke.
    @discardableResult
    func advance(to time: Double) -> Int {
        let due = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            current = time
            let ids = sleepers.filter { $0.value.deadline <= time }.map(\.key)
            return ids.compactMap { sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
        return due.count
    }
}

/// A one-shot event tasks await: `signal()` releases every waiter, present and future.
final class AsyncEvent: @unchecked Sendable {
    private let lock = NSLock()
    private var signalled = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isSignalled: Bool { lock.withLock { signalled } }

    func signal() {
        let released = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            guard !signalled else { return [] }
            signalled = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in released { waiter.resume() }
    }

    /// Waits for the event. `bound` is a safety net far past any wait on a busy machine: reaching
    /// it records an issue naming `what` (and ends the wait), so a broken order fails, never hangs.
    func wait(_ what: String, bound: Duration = .seconds(60)) async {
        let watchdog = Task { [self] in
            try? await Task.sleep(for: bound)   // the safety bound only; no result depends on it
            if !Task.isCancelled, !isSignalled {
                Issue.record("\(what) did not happen within \(bound)")
                signal()
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock { () -> Bool in
                if signalled { return true }
                waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        watchdog.cancel()
    }
}

/// An in-memory key service: wraps real keys to the client's ephemeral key exactly as the KAS
/// does (ECWrap), and answers each call as the test scripts it. `answersAfter` orders the answers
/// by events, never by delays: a component listed there answers only once the named component's
/// request returned and, when that answer was a failure, once the session cancelled this request
/// (the session reports its first failure, then cancels the rest).
final class ScriptedKeyService: MediaKeyService, @unchecked Sendable {
    enum Answer: Sendable {
        case key(lease: Int?)
        case status(Int)
        case hang
    }

    struct Call: Equatable {
        let kind: String
        let component: String
        let time: Double
    }

    let keys: [String: SecretKey]
    let clock: any PlaybackClock
    private let lock = NSLock()
    private var script: [String: [Answer]]
    private let answersAfter: [String: String]
    private var returned: [String: AsyncEvent] = [:]
    private var failed = Set<String>()
    private var log: [Call] = []
    private var sessions: [String: String] = [:]   // id -> component
    private var open = Set<String>()
    private var nextSession = 0
    var heartbeatSeconds = 100_000
    var heartbeatStatus: Int?
    /// As the KAS does (one live session per playback and component): a session start replaces
    /// the component's open session, whose heartbeats are then answered 404. A renewal's key
    /// request is answered only once such a heartbeat has been (the race this scripts).
    var replacesOnStart = false
    private var replaced = Set<String>()
    let heartbeatOfAReplacedSession = AsyncEvent()

    init(keys: [String: SecretKey], clock: any PlaybackClock, script: [String: [Answer]], answersAfter: [String: String] = [:]) {
        self.keys = keys
        self.clock = clock
        self.script = script
        self.answersAfter = answersAfter
    }

    private func returnedEvent(_ component: String) -> AsyncEvent {
        lock.withLock {
            if let event = returned[component] { return event }
            let event = AsyncEvent()
            returned[component] = event
            return event
        }
    }

    var calls: [Call] { lock.withLock { log } }
    var openSessions: Int { lock.withLock { open.count } }
    func count(_ kind: String) -> Int { calls.filter { $0.kind == kind }.count }

    private func record(_ kind: String, _ component: String) {
        let time = clock.now()
        lock.withLock { log.append(Call(kind: kind, component: component, time: time)) }
    }

    func startSession(_ request: MediaSessionRequest) async throws(PlaybackError) -> MediaSessionGrant {
        record("start", request.component)
        let id: String = lock.withLock {
            nextSession += 1
            let id = "session\(nextSession)"
            if replacesOnStart {
                for (other, component) in sessions where component == request.component && open.contains(other) {
                    open.remove(other)
                    replaced.insert(other)
                }
            }
            sessions[id] = request.component
            open.insert(id)
            return id
        }
        return MediaSessionGrant(sessionID: id, heartbeatSeconds: heartbeatSeconds)
    }

    func requestKey(_ request: KeyRequestParameters) async throws(PlaybackError) -> MediaKeyResponse {
        let answer: Answer = lock.withLock {
            guard var queue = script[request.component], !queue.isEmpty else { return .status(500) }
            let first = queue.removeFirst()
            script[request.component] = queue
            return first
        }
        if let previous = answersAfter[request.component] {
            await returnedEvent(previous).wait("the answer to \(previous)'s key request")
            if lock.withLock({ failed.contains(previous) }) {
                let cancelled = AsyncEvent()
                await withTaskCancellationHandler {
                    await cancelled.wait("the cancellation of \(request.component)'s key request after \(previous) failed")
                } onCancel: {
                    cancelled.signal()
                }
            }
        }
        if lock.withLock({ replacesOnStart && replaced.contains { sessions[$0] == request.component } }) {
            await heartbeatOfAReplacedSession.wait("a heartbeat of the session this renewal replaced")
        }
        defer { returnedEvent(request.component).signal() }
        record("key", request.component)
        switch answer {
        case .status(let status):
            lock.withLock { _ = failed.insert(request.component) }
            throw PlaybackError.keyService(status: status, route: "key-request")
        case .hang:
            // Answers only when the session cancels the request.
            let cancelled = AsyncEvent()
            await withTaskCancellationHandler {
                await cancelled.wait("the cancellation of a hanging key request", bound: .seconds(600))
            } onCancel: {
                cancelled.signal()
            }
            throw PlaybackError(.transport, "cancelled")
        case .key(let lease):
            guard let key = keys[request.component],
                  let client = try? ECP256.KeyAgreement.PublicKey(pemRepresentation: request.clientPublicKeyPEM),
                  let wrapped = try? ECWrap.wrap(key, to: client) else { throw PlaybackError(.malformed, "test wrap") }
            return MediaKeyResponse(wrappedKey: wrapped.wrappedKey, sessionPublicKeyPEM: wrapped.ephemeralPublicKey.pemRepresentation,
                                    leaseSeconds: lease)
        }
    }

    func heartbeat(sessionID: String) async throws(PlaybackError) {
        record("heartbeat", lock.withLock { sessions[sessionID] ?? "?" })
        if lock.withLock({ replaced.contains(sessionID) }) {
            heartbeatOfAReplacedSession.signal()
            throw PlaybackError.keyService(status: 404, route: "heartbeat")
        }
        if let status = heartbeatStatus { throw PlaybackError.keyService(status: status, route: "heartbeat") }
    }

    func endSession(sessionID: String) async throws(PlaybackError) {
        record("end", lock.withLock { sessions[sessionID] ?? "?" })
        lock.withLock { _ = open.remove(sessionID) }
    }
}

/// Namespace so that `swift test --filter Playback` selects these suites.
enum Playback {}

extension Playback {
@Suite struct ContentKeySessionTests {
    static let components = ["video", "audio"]

    static func keys() throws -> [String: SecretKey] {
        ["video": SecretKey(data: try SecureRandom.bytes(count: 16)), "audio": SecretKey(data: try SecureRandom.bytes(count: 16))]
    }

    static func session(_ service: ScriptedKeyService, clock: any PlaybackClock, delegate: RecordingDelegate) -> ContentKeySession {
        ContentKeySession(service: service, assetID: "7f0c2d1e-0000-4000-8000-000000000001", manifest: Data("{}".utf8),
                          components: components, clock: clock, delegate: delegate)
    }

    @Test(arguments: [(600, 480.0), (200, 100.0), (240, 120.0), (60, 30.0), (3600, 3480.0), (86_400, 86_280.0)])
    func renewalIsDueAtTheLaterOfLeaseMinus120AndHalfTheLease(lease: Int, due: Double) {
        #expect(LeaseSchedule.renewalDelay(leaseSeconds: lease) == due)
    }

    @Test func everyComponentGetsItsOwnSessionAndAFreshKeyAndKeysAreTheServicesKeys() async throws {
        let clock = ManualClock()
        let keys = try Self.keys()
        let service = ScriptedKeyService(keys: keys, clock: clock, script: ["video": [.key(lease: nil)], "audio": [.key(lease: nil)]])
        let delegate = RecordingDelegate()
        let session = Self.session(service, clock: clock, delegate: delegate)
        let delivered = try await session.start()
        for component in Self.components {
            #expect(delivered[component].map { $0.withUnsafeBytes { Data($0) } } == keys[component].map { $0.withUnsafeBytes { Data($0) } })
        }
        #expect(service.count("start") == 2)
        #expect(service.count("key") == 2)
        #expect(delegate.deliveries == [Self.components])
        await session.stop()
        #expect(service.openSessions == 0)
        #expect(delegate.failures.isEmpty)   // a stop after delivery reports nothing
    }

    @Test func renewalRunsPerComponentAtTheScheduledTimeAndEndsThePreviousSession() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: try Self.keys(), clock: clock, script: [
            "video": [.key(lease: 600), .key(lease: 600)],
            "audio": Array(repeating: .key(lease: 200), count: 6),
        ])
        let delegate = RecordingDelegate()
        let session = Self.session(service, clock: clock, delegate: delegate)
        _ = try await session.start()
        func starts(_ component: String) -> [Double] {
            service.calls.filter { $0.kind == "start" && $0.component == component }.map(\.time)
        }
        await eventually("clock.sleeperCount == 4") { clock.sleeperCount == 4 }   // two renewals, two heartbeats
        #expect(clock.deadlines.prefix(2) == [100, 480])
        // Nothing is due before 100: advancing to 99.9 wakes no timer, so no renewal can start.
        #expect(clock.advance(to: 99.9) == 0)
        #expect(clock.sleeperCount == 4)
        #expect(service.count("start") == 2)

        clock.advance(to: 100)   // audio: max(200 - 120, 100)
        await eventually("service.count(\"end\") == 1") { service.count("end") == 1 }
        #expect(starts("audio") == [0, 100])
        #expect(service.openSessions == 2)
        await eventually("clock.deadlines.contains(200)") { clock.deadlines.contains(200) }
        #expect(clock.deadlines.prefix(2) == [200, 480])   // timed from audio's own last delivery

        clock.advance(to: 200)
        await eventually("service.count(\"end\") == 2") { service.count("end") == 2 }
        #expect(starts("audio") == [0, 100, 200])

        clock.advance(to: 479.9)
        await eventually("service.count(\"end\") == 3") { service.count("end") == 3 }
        #expect(starts("video") == [0])
        clock.advance(to: 480)   // video: max(600 - 120, 300)
        await eventually("service.count(\"end\") == 4") { service.count("end") == 4 }
        #expect(starts("video") == [0, 480])
        // Each previous session ends only after the new key arrived.
        let calls = service.calls
        let renewedKey = try #require(calls.lastIndex(where: { $0.kind == "key" && $0.component == "video" }))
        let ended = try #require(calls.lastIndex(where: { $0.kind == "end" && $0.component == "video" }))
        #expect(renewedKey < ended)
        #expect(service.openSessions == 2)
        #expect(delegate.deliveries.count == 1)   // renewals never report
        #expect(delegate.failures.isEmpty)
        try session.validity.check()
        await session.stop()
        #expect(service.openSessions == 0)
    }

    @Test func aDeniedRenewalStopsTheKeysAndEndsEverySessionWithoutReporting() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: try Self.keys(), clock: clock, script: [
            "video": [.key(lease: 6000)], "audio": [.key(lease: 600), .status(403)],
        ])
        let delegate = RecordingDelegate()
        let session = Self.session(service, clock: clock, delegate: delegate)
        _ = try await session.start()
        await eventually("clock.sleeperCount == 4") { clock.sleeperCount == 4 }
        clock.advance(to: 480)
        await eventually("service.openSessions == 0") { service.openSessions == 0 }
        #expect(throws: PlaybackError(.denied, "")) { try session.validity.check() }
        #expect(delegate.deliveries.count == 1)
        #expect(delegate.failures.isEmpty)
    }

    @Test func aLeaseThatRunsOutWithoutRenewalStopsTheKeys() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: try Self.keys(), clock: clock, script: [
            "video": [.key(lease: 600), .hang], "audio": [.key(lease: 600), .hang],
        ])
        let session = Self.session(service, clock: clock, delegate: RecordingDelegate())
        _ = try await session.start()
        await eventually("clock.sleeperCount == 4") { clock.sleeperCount == 4 }
        clock.advance(to: 599)
        try session.validity.check()
        clock.advance(to: 600)
        #expect(throws: PlaybackError(.leaseLapsed, "")) { try session.validity.check() }
        await session.stop()
        #expect(service.openSessions == 0)
    }

    @Test func aHeartbeatAnswered404MeansTheServerEndedTheSession() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: try Self.keys(), clock: clock, script: [
            "video": [.key(lease: nil)], "audio": [.key(lease: nil)],
        ])
        service.heartbeatSeconds = 30
        service.heartbeatStatus = 404
        let session = Self.session(service, clock: clock, delegate: RecordingDelegate())
        _ = try await session.start()
        await eventually("clock.sleeperCount == 2") { clock.sleeperCount == 2 }   // no lease: heartbeats only
        #expect(clock.deadlines == [30, 30])
        clock.advance(to: 30)
        await eventually("service.openSessions == 0") { service.openSessions == 0 }
        #expect(throws: PlaybackError(.sessionEnded, "")) { try session.validity.check() }
    }

    /// A renewal's new session replaces the old one at the KAS; a heartbeat of the old session
    /// that the KAS answers 404 meanwhile is the renewal at work, not the end of the playback.
    @Test func aHeartbeatOfTheSessionBeingRenewedAnswered404IsNotAFailure() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: try Self.keys(), clock: clock, script: [
            "video": [.key(lease: nil)], "audio": [.key(lease: 200), .key(lease: 200)],
        ])
        service.heartbeatSeconds = 150
        service.replacesOnStart = true
        let delegate = RecordingDelegate()
        let session = Self.session(service, clock: clock, delegate: delegate)
        _ = try await session.start()
        await eventually("clock.sleeperCount == 3") { clock.sleeperCount == 3 }   // audio's renewal, two heartbeats
        clock.advance(to: 100)   // audio's renewal: its new session replaces the old one at the KAS
        await eventually("the renewal's session start") { service.count("start") == 3 }
        clock.advance(to: 150)   // the old audio session's heartbeat, while the renewal waits for its key
        await eventually("the renewed audio key") { service.count("key") == 3 }
        await eventually("the previous audio session ended") { service.calls.contains { $0.kind == "end" } }
        let audioHeartbeats = service.calls.filter { $0.kind == "heartbeat" && $0.component == "audio" }
        #expect(!audioHeartbeats.isEmpty, "the replaced session's heartbeat was answered 404 during the renewal")
        try session.validity.check()
        #expect(delegate.failures.isEmpty)
        await session.stop()
    }

    /// The components' answers arrive in a set order (by events: the later one answers only after
    /// the earlier one returned, and after the session cancelled it when the earlier one failed);
    /// one report at most, the first failure's, never both.
    @Test(arguments: [
        (ScriptedKeyService.Answer.status(403), ScriptedKeyService.Answer.key(lease: nil), "video", PlaybackError.Code.denied),
        (.key(lease: nil), .status(429), "audio", .concurrencyLimit),
        (.status(401), .status(503), "video", .unauthorized),
        (.status(503), .status(401), "audio", .unauthorized),
        (.key(lease: nil), .status(422), "video", .malformed),
    ])
    func theFirstFailureIsReportedOnceAndNothingIsDelivered(video: ScriptedKeyService.Answer, audio: ScriptedKeyService.Answer,
                                                            answersFirst: String,
                                                            expected: PlaybackError.Code) async throws {
        let clock = ManualClock()
        let second = answersFirst == "video" ? "audio" : "video"
        let service = ScriptedKeyService(keys: try Self.keys(), clock: clock, script: ["video": [video], "audio": [audio]],
                                         answersAfter: [second: answersFirst])
        let delegate = RecordingDelegate()
        let session = Self.session(service, clock: clock, delegate: delegate)
        await #expect(throws: PlaybackError(expected, "")) { try await session.start() }
        #expect(delegate.failures.count == 1)
        #expect(delegate.failures.first?.code == expected)
        #expect(delegate.deliveries.isEmpty)
        #expect(service.openSessions == 0)
        #expect(throws: PlaybackError(expected, "")) { try session.validity.check() }
        await session.stop()
        #expect(delegate.failures.count == 1)
    }

    @Test func aStopDuringAcquisitionReportsAtMostOnceAndEndsEverySession() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: try Self.keys(), clock: clock, script: ["video": [.hang], "audio": [.hang]])
        let delegate = RecordingDelegate()
        let session = Self.session(service, clock: clock, delegate: delegate)
        let task = Task { try await session.start() }
        await eventually("service.count(\"start\") == 2") { service.count("start") == 2 }
        await session.stop()
        task.cancel()
        _ = await task.result
        await eventually("service.openSessions == 0") { service.openSessions == 0 }
        #expect(service.openSessions == 0)
        #expect(delegate.deliveries.isEmpty)
        #expect(delegate.failures.count <= 1)
    }
}
}
