import Client
import Foundation
import Testing

/// The TransportError a call threw, or nil when it succeeded. Any other error type is a test
/// failure (recorded) and also returns nil.
func transportError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> TransportError? {
    do {
        _ = try body()
        return nil
    } catch {
        guard let transport = error as? TransportError else {
            Issue.record("expected a TransportError, got \(type(of: error))", sourceLocation: sourceLocation)
            return nil
        }
        return transport
    }
}

func asyncTransportError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> TransportError? {
    do {
        _ = try await body()
        return nil
    } catch {
        guard let transport = error as? TransportError else {
            Issue.record("expected a TransportError, got \(type(of: error))", sourceLocation: sourceLocation)
            return nil
        }
        return transport
    }
}

/// Polls `condition` until it holds; past `bound` (far beyond any step on a busy machine)
/// records an issue naming `what` and returns false, so a timeout is a failure, never a pass.
@discardableResult
func eventually(_ what: String, bound: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
                _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + bound
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("\(what) did not happen within \(bound)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(10))   // the poll interval; no result depends on it
    }
    return true
}

/// Runs blocking `work` on a thread of its own and returns its result once it finished, or nil
/// (with an issue recorded) when it is still running after `bound`. For calls whose only wrong
/// outcome is "never returns": the bound is far past the timeout under test and far short of
/// the delays that would keep the call running without it.
func finishes<T: Sendable>(within bound: Duration, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                           _ work: @escaping @Sendable () -> T) async -> T? {
    let box = ThreadResult<T>()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        box.value = work()
        done.signal()
    }
    let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        Thread.detachNewThread {
            continuation.resume(returning: done.wait(timeout: .now() + .nanoseconds(Int(bound.components.seconds) * 1_000_000_000)) == .success)
        }
    }
    guard finished else {
        Issue.record("\(what) was still running after \(bound)", sourceLocation: sourceLocation)
        return nil
    }
    return box.value
}

/// `finishes` for an async call: the call races a timer of `bound`, and whichever ends first
/// decides; when the timer does, nil is returned and an issue recorded (the call is left to
/// run out on its own: awaiting a task's value cannot be cancelled).
func finishes<T: Sendable>(within bound: Duration, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                           _ work: @escaping @Sendable () async -> T) async -> T? {
    let outcome = FirstOutcome<T>()
    let first = await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        outcome.arm(continuation)
        Task { outcome.finish(await work()) }
        Task {
            try? await Task.sleep(for: bound)   // the safety bound only; no result depends on it
            outcome.finish(nil)
        }
    }
    if first == nil { Issue.record("\(what) was still running after \(bound)", sourceLocation: sourceLocation) }
    return first
}

/// Resumes a continuation with the first of several racing outcomes, exactly once.
final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T?, Never>?
    private var early: T??

    func arm(_ continuation: CheckedContinuation<T?, Never>) {
        let ready: T?? = lock.withLock {
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func finish(_ value: T?) {
        let waiting: CheckedContinuation<T?, Never>? = lock.withLock {
            if let waiting = continuation {
                continuation = nil
                early = .some(value)
                return waiting
            }
            if early == nil { early = .some(value) }
            return nil
        }
        waiting?.resume(returning: value)
    }
}

/// A value handed from a worker thread to its waiter (the semaphore orders the accesses).
final class ThreadResult<T>: @unchecked Sendable {
    var value: T?
}
