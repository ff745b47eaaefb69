import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `FairPlaySDKModule` transport to an executable implementing the FairPlay Streaming Server
/// SDK's JSON interface (Apple's SDK reference implementation can be run this way): one process
/// per call, the request document on stdin (then EOF), the response document on stdout, exit
/// status 0. The call is bounded in time (the process is killed with SIGKILL past the deadline:
/// SIGTERM may be blocked in an inherited signal mask) and in response size. stderr is
/// discarded and nothing is logged, since requests carry content keys and SPCs and responses
/// carry CKCs. The child gets the KAS's environment without its `KAS_*` variables.
package struct FairPlayCommandTransport: Sendable {
    public let executable: String
    public let arguments: [String]
    public let timeoutSeconds: Int
    public let maxResponseBytes: Int

    public init(executable: String, arguments: [String] = [], timeoutSeconds: Int = 10, maxResponseBytes: Int = 1 << 20) {
        self.executable = executable
        self.arguments = arguments
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
        _ = Self.ignoreBrokenPipes
    }

    /// A child that exits without reading its stdin must cost an EPIPE, not the KAS process.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    public static let timedOut = FairPlayError(.unavailable, "the FairPlay SDK command timed out")
    public static let failed = FairPlayError(.unavailable, "the FairPlay SDK command exited with a failure status")
    public static let notStarted = FairPlayError(.unavailable, "the FairPlay SDK command could not be started")
    public static let tooLarge = FairPlayError(.malformedResponse, "the FairPlay SDK command's response is too large")
    public static let ioFailure = FairPlayError(.unavailable, "the FairPlay SDK command's pipes failed")

    public func send(_ request: Data) throws(FairPlayError) -> Data {
        let deadline = DispatchTime.now() + .seconds(timeoutSeconds)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KAS_") }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw Self.notStarted
        }

        var outcome = exchange(request, input: input.fileHandleForWriting, output: output.fileHandleForReading,
                               deadline: deadline)
        // stdout closed is not the end: the exit status decides, within the same deadline.
        if case .success = outcome, exited.wait(timeout: deadline) == .timedOut {
            outcome = .failure(Self.timedOut)
        }
        switch outcome {
        case .failure(let failure):
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            // Wait for the reap, so no zombie is left behind.
            _ = exited.wait(timeout: .now() + .seconds(5))
            throw failure
        case .success(let response):
            guard process.terminationReason == .exit, process.terminationStatus == 0 else { throw Self.failed }
            return response
        }
    }

    /// Writes the request and reads the response in one poll loop, so a child that answers
    /// before reading everything cannot deadlock the call and the deadline covers both.
    private func exchange(_ request: Data, input: FileHandle, output: FileHandle,
                          deadline: DispatchTime) -> Result<Data, FairPlayError> {
        let writeFD = input.fileDescriptor
        let readFD = output.fileDescriptor
        _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
        let body = [UInt8](request)
        var written = 0
        var writing = true
        func closeInput() {
            if writing { writing = false; try? input.close() }
        }
        defer {
            closeInput()
            try? output.close()
        }
        if body.isEmpty { closeInput() }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline.uptimeNanoseconds else { return .failure(Self.timedOut) }
            let waitMilliseconds = Int32(clamping: (deadline.uptimeNanoseconds - now + 999_999) / 1_000_000)
            var fds = [pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
            if writing { fds.append(pollfd(fd: writeFD, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), waitMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(Self.ioFailure)
            }
            if ready == 0 { continue }
            if writing, fds.count > 1, fds[1].revents != 0 {
                if fds[1].revents & Int16(POLLOUT) != 0 {
                    let count = body.withUnsafeBytes { raw in
                        write(writeFD, raw.baseAddress.map { $0 + written }, body.count - written)
                    }
                    if count > 0 {
                        written += count
                        if written == body.count { closeInput() }
                    } else if count < 0, errno != EAGAIN, errno != EINTR {
                        closeInput()   // the child closed its stdin; its answer still counts
                    }
                } else {
                    closeInput()
                }
            }
            if fds[0].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
                if count > 0 {
                    guard response.count + count <= maxResponseBytes else { return .failure(Self.tooLarge) }
                    response.append(contentsOf: chunk[0..<count])
                } else if count == 0 {
                    return .success(Data(response))
                } else if errno != EAGAIN, errno != EINTR {
                    return .failure(Self.ioFailure)
                }
            }
        }
    }
}
