import Foundation

/// Where clear media goes, in order: stdout, a pipe to a player process, a file.
public protocol MediaOutput: AnyObject {
    func write(_ bytes: [UInt8]) throws(MediaError)
}

/// Writes to a `FileHandle` (stdout, a pipe, a file). A reader that went away (EPIPE) is an
/// `.io` error; the process should ignore SIGPIPE so that it gets one instead of dying.
public final class FileHandleOutput: MediaOutput {
    public let handle: FileHandle
    public private(set) var bytesWritten: UInt64 = 0

    public init(_ handle: FileHandle) { self.handle = handle }

    public func write(_ bytes: [UInt8]) throws(MediaError) {
        guard !bytes.isEmpty else { return }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw MediaError(.io, "cannot write clear media to the output")
        }
        bytesWritten += UInt64(bytes.count)
    }
}

/// Collects the output in memory (tests, small clips).
public final class MemoryOutput: MediaOutput {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: [UInt8]) throws(MediaError) { self.bytes += bytes }
}
