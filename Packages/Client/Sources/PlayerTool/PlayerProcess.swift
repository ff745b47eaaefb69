import Client
import Dispatch
import Foundation
import MediaDRMToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ffplay or mpv reading the clear fMP4 from a pipe. What it prints on stderr is passed through
/// as it comes, and its end is kept: when the player fails (it cannot open a display, it cannot
/// decode), `player play` exits non-zero with the player's own message instead of "finished".
final class PlayerProcess: @unchecked Sendable {
    let process: Process
    let name: String
    /// The pipe's writing end; it remembers whether the player stopped reading.
    let output: PresenterOutput
    private let pipe: Pipe
    private let messages: PlayerMessages
    private let lock = NSLock()
    private var terminated = false

    static func find() -> (String, [String])? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let players: [(String, [String])] = [
            ("ffplay", ["-loglevel", "error", "-autoexit", "-i", "pipe:0"]),
            ("mpv", ["--really-quiet", "-"]),
        ]
        for (name, arguments) in players {
            for directory in path.split(separator: ":") where !directory.isEmpty {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return (candidate, arguments) }
            }
        }
        return nil
    }

    static func launch() throws -> PlayerProcess {
        guard let (path, arguments) = find() else {
            throw ToolFailure("--play needs ffplay or mpv on PATH, and neither is installed; use --output FILE or a pipe")
        }
        return try PlayerProcess(path: path, arguments: arguments)
    }

    private init(path: String, arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        name = URL(fileURLWithPath: path).lastPathComponent
        pipe = Pipe()
        let errors = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.standardError
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw ToolFailure("cannot start \(path): \(error.localizedDescription)")
        }
        messages = PlayerMessages(errors.fileHandleForReading)
        try? errors.fileHandleForWriting.close()
        output = PresenterOutput(FileHandleOutput(pipe.fileHandleForWriting))
    }

    /// Closes the pipe (end of stream) and waits while the player presents the rest.
    func waitForExit() async {
        try? pipe.fileHandleForWriting.close()
        let process = self.process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    /// Why the player failed, once it exited on its own with a non-zero status or a signal: its
    /// name, its status and the last line it printed. Nil when it succeeded or still runs.
    /// When it stopped reading the pipe it is exiting; this waits for that (a bounded wait).
    func failure() -> String? {
        if output.readerWentAway {
            for _ in 0..<100 where process.isRunning { usleep(50_000) }
        }
        guard !process.isRunning, !lock.withLock({ terminated }) else { return nil }
        let status = process.terminationStatus
        let signalled = process.terminationReason == .uncaughtSignal
        if !signalled, status == 0, !output.readerWentAway { return nil }
        let how = signalled ? "was killed by signal \(status)" : status == 0 ? "stopped reading the media" : "exited with status \(status)"
        let message = messages.lastLine()
        return "\(name) \(how)" + (message.isEmpty ? "" : ": \(message)")
    }

    func terminate() {
        lock.withLock { terminated = true }
        try? pipe.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// The player's pipe as the playback's output, noting when the player stopped reading (EPIPE).
final class PresenterOutput: MediaOutput, @unchecked Sendable {
    private let output: FileHandleOutput
    private let lock = NSLock()
    private var wentAway = false

    init(_ output: FileHandleOutput) { self.output = output }

    var readerWentAway: Bool { lock.withLock { wentAway } }

    func write(_ bytes: [UInt8]) throws(MediaError) {
        do {
            try output.write(bytes)
        } catch {
            lock.withLock { wentAway = true }
            throw error
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError) {
        do {
            try output.write(bytes)
        } catch {
            lock.withLock { wentAway = true }
            throw error
        }
    }
}

/// Passes the player's stderr through to ours and keeps its last 4 KiB, read on a thread of its
/// own until the player closes it.
final class PlayerMessages: @unchecked Sendable {
    private let lock = NSLock()
    private var tail: [UInt8] = []
    private let finished = DispatchSemaphore(value: 0)
    private static let keep = 4096

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let chunk = buffer[0..<count]
                _ = chunk.withUnsafeBytes { Foundation.write(STDERR_FILENO, $0.baseAddress, $0.count) }
                lock.withLock {
                    tail.append(contentsOf: chunk)
                    if tail.count > Self.keep { tail.removeFirst(tail.count - Self.keep) }
                }
            }
            try? handle.close()
            finished.signal()
        }
        thread.start()
    }

    /// The last non-empty line the player printed, printable characters only, at most 300;
    /// waits (up to 5 s) for the player to close its stderr.
    func lastLine() -> String {
        if finished.wait(timeout: .now() + 5) == .success { finished.signal() }
        let text = lock.withLock { String(decoding: tail, as: UTF8.self) }
        let line = text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        let printable = line.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        return String(String.UnicodeScalarView(printable).prefix(300)).trimmingCharacters(in: .whitespaces)
    }
}
