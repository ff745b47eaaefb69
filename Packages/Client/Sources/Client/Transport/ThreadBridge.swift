import Foundation

/// Runs blocking work on a thread of its own (never on the cooperative pool or a width-limited
/// dispatch queue, which slow transfers and reads would starve) and awaits its result, with
/// cancellation that holds whenever it arrives:
/// - before the call: the task is already cancelled, no thread starts and `cancelled()` is the
///   result (`withTaskCancellationHandler` runs its handler first in that case);
/// - while the work runs: the thread's `CancellationFlag.current` is set, and every libcurl
///   transfer the work makes on that thread stops at its next callback (libcurl calls back at
///   least about once a second, even while waiting for a silent server);
/// - after the work finished but before the caller resumed: the result is `cancelled()` too, so
///   a cancelled call never reports an outcome its caller stopped waiting for.
enum ThreadBridge {
    static func run<Success: Sendable, Failure: Error>(
        name: String, stackSize: Int? = nil, cancelled: @escaping @Sendable () -> Failure,
        _ work: @escaping @Sendable () -> Result<Success, Failure>
    ) async -> Result<Success, Failure> {
        let flag = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Success, Failure>, Never>) in
                guard !flag.isCancelled else {
                    continuation.resume(returning: .failure(cancelled()))
                    return
                }
                let thread = Thread {
                    CancellationFlag.setCurrent(flag)
                    continuation.resume(returning: work())
                }
                thread.name = name
                if let stackSize { thread.stackSize = stackSize }
                thread.start()
            }
        } onCancel: {
            flag.cancel()
        }
        return flag.isCancelled ? .failure(cancelled()) : result
    }
}
