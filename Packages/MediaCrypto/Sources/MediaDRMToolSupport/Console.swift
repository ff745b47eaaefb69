#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where a tool's output goes. Results go to stdout; progress, warnings and errors go to stderr,
/// so `tool verb --json > out.json` stays machine-readable. Tests swap in a capturing console.
public struct Console: Sendable {
    public let toolName: String
    /// When set, `progress` lines are dropped (errors and warnings are always printed).
    public var isQuiet: Bool
    private let writeOut: @Sendable (Data) -> Void
    private let writeErr: @Sendable (Data) -> Void

    public init(toolName: String, isQuiet: Bool = false,
                stdout: @escaping @Sendable (Data) -> Void,
                stderr: @escaping @Sendable (Data) -> Void) {
        self.toolName = toolName
        self.isQuiet = isQuiet
        self.writeOut = stdout
        self.writeErr = stderr
    }

    /// The process's real stdout and stderr.
    public static func standard(toolName: String) -> Console {
        Console(toolName: toolName,
                stdout: { writeAll(fd: 1, $0) },
                stderr: { writeAll(fd: 2, $0) })
    }

    /// A console that records everything, for tests.
    public static func capturing(toolName: String) -> (Console, CapturedOutput) {
        let captured = CapturedOutput()
        let console = Console(toolName: toolName,
                              stdout: { captured.append(stdout: $0) },
                              stderr: { captured.append(stderr: $0) })
        return (console, captured)
    }

    /// A result line on stdout.
    public func print(_ line: String) {
        writeOut(Data((line + "\n").utf8))
    }

    /// Raw result bytes on stdout.
    public func write(_ data: Data) {
        writeOut(data)
    }

    /// A progress line on stderr, unless quiet.
    public func progress(_ line: String) {
        guard !isQuiet else { return }
        writeErr(Data("\(toolName): \(line)\n".utf8))
    }

    public func warning(_ message: String) {
        writeErr(Data("\(toolName): warning: \(message)\n".utf8))
    }

    public func error(_ message: String) {
        writeErr(Data("\(toolName): error: \(message)\n".utf8))
    }

    /// Free text on stderr (usage lines after a usage error).
    public func printError(_ text: String) {
        writeErr(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// `value` as pretty JSON with sorted keys on stdout: stable for diffs and tests.
    public func printJSON(_ value: some Encodable) throws(ToolFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(value)
            data.append(0x0A)
            writeOut(data)
        } catch {
            throw ToolFailure("could not encode JSON output")
        }
    }

    private static func writeAll(fd: Int32, _ data: Data) {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var pointer = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let written = systemWrite(fd, pointer, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                left -= written
                pointer += written
            }
        }
    }
}

/// Thread-safe record of a capturing console's output.
public final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    public var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    public var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }
    public var stdoutData: Data { lock.withLock { out } }

    func append(stdout data: Data) { lock.withLock { out.append(data) } }
    func append(stderr data: Data) { lock.withLock { err.append(data) } }
}

private func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, pointer, count)
    #else
    return Darwin.write(fd, pointer, count)
    #endif
}
