import Foundation

/// Where clear media goes, in order: stdout, a pipe to a player process, a file.
public protocol MediaOutput: AnyObject {
    func write(_ bytes: [UInt8]) throws(MediaError)
    /// Bytes that live in another buffer (a decrypted payload in the segment read buffer).
    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError)
}

extension MediaOutput {
    public func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError) { try write(Array(bytes)) }
}

/// Writes to a `FileHandle` (stdout, a pipe, a file). A reader that went away (EPIPE) is an
/// `.io` error; the process should ignore SIGPIPE so that it gets one instead of dying.
public final class FileHandleOutput: MediaOutput {
    public let handle: FileHandle
    public private(set) var bytesWritten: UInt64 = 0

    public init(_ handle: FileHandle) { self.handle = handle }

    public func write(_ bytes: [UInt8]) throws(MediaError) {
        let failure = bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> MediaError? in
            do throws(MediaError) {
                try write(buffer)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// write(2) from the caller's storage: FileHandle.write(contentsOf:) first copies into a Data.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError) {
        guard var pointer = bytes.baseAddress, !bytes.isEmpty else { return }
        let fd = handle.fileDescriptor
        var left = bytes.count
        while left > 0 {
            let written = Foundation.write(fd, pointer, left)
            if written < 0 {
                if errno == EINTR { continue }
                throw MediaError(.io, "cannot write clear media to the output")
            }
            left -= written
            pointer += written
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
