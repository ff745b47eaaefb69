#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an `AtomicFileWriter` could not write its file. `reason` is the OS's text for the failed
/// call ("No such file or directory") or a fixed sentence; callers put it in their own error
/// type with the words their users know ("cannot write output '…'").
public struct AtomicFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The destination exists and is a directory, device or pipe, which a rename would replace.
        case notARegularFile
        /// A system call failed: creating, writing, syncing, setting the mode or renaming.
        case system
        /// The writer was already committed or discarded.
        case closed
    }

    public let code: Code
    /// The destination.
    public let path: String
    public let reason: String

    init(_ code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// A failed system call, with the C library's text for `errno`.
    static func system(_ path: String, _ code: Int32) -> AtomicFileError {
        let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        return AtomicFileError(.system, path: path, reason: text)
    }

    public var description: String { "cannot write '\(path)': \(reason)" }
}
