import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so that readers see either the old file (or nothing) or the complete new one:
/// bytes go to a hidden temporary file in the destination's directory (the same file system, so
/// the final rename is atomic), which `commit()` fsyncs and renames over the destination, then
/// fsyncs the directory so the rename itself is durable. Anything short of `commit()` (an error,
/// an early return, the writer released) removes the temporary file. The one atomic writer of
/// the project: ZIP archives (`ZIPAtomicFile`), the tools' outputs, the offline library's
/// records and the KAS's key files go through it.
public final class AtomicFileWriter {
    public let destination: String
    public let temporaryPath: String
    private var fd: Int32
    private var finished = false

    /// Opens a fresh temporary file next to `destination`. `mode` nil gives the usual
    /// permissions of a new file (0666 less the umask); a mode is set exactly, from creation on
    /// (a private 0600 file is never readable by others, not even before the rename, and the
    /// umask neither widens nor narrows it). A destination that exists and is not a regular file
    /// is refused: renaming over a device, pipe or directory would replace it (as root,
    /// /dev/null with a regular file).
    public init(destination: String, mode: mode_t? = nil) throws(AtomicFileError) {
        self.destination = destination
        var existing = stat()
        if stat(destination, &existing) == 0, existing.st_mode & S_IFMT != S_IFREG {
            throw AtomicFileError(.notARegularFile, path: destination, reason: "it exists and is not a regular file")
        }
        let (directory, name) = Self.split(destination)
        let prefix = directory.isEmpty ? "" : directory.hasSuffix("/") ? directory : directory + "/"
        var opened: Int32 = -1
        var candidate = ""
        for _ in 0..<8 {
            candidate = prefix + ".\(name).tmp-\(String(UInt64.random(in: .min ... .max), radix: 16))"
            opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode ?? 0o666)
            if opened >= 0 || errno != EEXIST { break }
        }
        guard opened >= 0 else { throw .system(destination, errno) }
        if let mode, fchmod(opened, mode) != 0 {
            let code = errno
            close(opened)
            unlink(candidate)
            throw .system(destination, code)
        }
        fd = opened
        temporaryPath = candidate
    }

    deinit { discard() }

    /// The open descriptor of the temporary file, for writers that write to it themselves; the
    /// writer closes it.
    public var fileDescriptor: Int32 { fd }

    /// A handle on the temporary file that does not own the descriptor.
    public var fileHandle: FileHandle { FileHandle(fileDescriptor: fd, closeOnDealloc: false) }

    public func write(_ bytes: some DataProtocol) throws(AtomicFileError) {
        guard !finished else { throw AtomicFileError(.closed, path: destination, reason: "the file is already closed") }
        for region in bytes.regions {
            let failure: Int32? = region.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
                guard var pointer = buffer.baseAddress else { return nil }
                var left = buffer.count
                while left > 0 {
                    let written = systemWrite(fd, pointer, left)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    left -= written
                    pointer += written
                }
                return nil
            }
            if let failure { throw .system(destination, failure) }
        }
    }

    /// Flushes the bytes to disk and renames the file into place. After this the writer is done.
    public func commit() throws(AtomicFileError) {
        guard !finished else { throw AtomicFileError(.closed, path: destination, reason: "the file is already closed") }
        guard fsync(fd) == 0 else {
            let code = errno
            discard()
            throw .system(destination, code)
        }
        close(fd)
        fd = -1
        guard rename(temporaryPath, destination) == 0 else {
            let code = errno
            discard()
            throw .system(destination, code)
        }
        finished = true
        // The rename is durable only once the directory entry is on disk too; a failure here
        // leaves a complete file in place.
        let directory = Self.split(destination).directory
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Drops the temporary file; the destination is left as it was.
    public func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        if !finished {
            unlink(temporaryPath)
            finished = true
        }
    }

    /// Runs `body` with a writer for `destination`, commits when it returns and discards the
    /// temporary file when it throws (the error is rethrown unchanged).
    public static func produce<T>(_ destination: String, mode: mode_t? = nil,
                                  _ body: (AtomicFileWriter) throws -> T) throws -> T {
        let writer = try AtomicFileWriter(destination: destination, mode: mode)
        do {
            let result = try body(writer)
            try writer.commit()
            return result
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Writes `data` to `destination` atomically (`mode` as for `init`).
    public static func write(_ data: some DataProtocol, to destination: String, mode: mode_t? = nil) throws(AtomicFileError) {
        let writer = try AtomicFileWriter(destination: destination, mode: mode)
        try writer.write(data)
        try writer.commit()
    }

    /// The directory part (empty for a bare name, "/" at the root) and the last component, split
    /// at the last slash. NSString's path methods trap on a one-character relative path such as
    /// `d` (swift-corelibs-foundation on Linux), so paths never go through them.
    public static func split(_ path: String) -> (directory: String, name: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return ("", String(trimmed)) }
        let name = String(trimmed[trimmed.index(after: slash)...])
        return (slash == trimmed.startIndex ? "/" : String(trimmed[..<slash]), name)
    }
}

/// write(2), named apart from `AtomicFileWriter.write` so member lookup does not shadow it.
private func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, pointer, count)
    #else
    return Darwin.write(fd, pointer, count)
    #endif
}
