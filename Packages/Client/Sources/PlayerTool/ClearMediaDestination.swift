import Client
import Foundation
import MediaDRMEncoding
import MediaDRMToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a verb writes clear media: a file named with an explicit option (written atomically:
/// nothing appears at the path unless the whole output was produced), or stdout when that is not
/// a terminal. Shared by the verbs that output clear media.
final class ClearMediaDestination: MediaOutput {
    private let file: AtomicFileWriter?
    private let stdout: FileHandleOutput?
    let path: String?
    private(set) var bytesWritten: UInt64 = 0

    /// Checks the destination before any work starts: clear media never goes to a terminal.
    init(path: String?) throws {
        self.path = path
        if let path, Self.isStream(path) {
            // A device or pipe (`-o /dev/null`, a named pipe to a player) is written in place:
            // there is nothing to rename, and renaming over it would replace it.
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw ToolFailure("cannot write output '\(path)': it cannot be opened for writing")
            }
            file = nil
            stdout = FileHandleOutput(handle)
        } else if let path {
            do {
                file = try AtomicFileWriter(destination: path)
            } catch {
                throw ToolFailure(output: error)
            }
            stdout = nil
        } else {
            guard isatty(STDOUT_FILENO) == 0 else {
                throw UsageError("refusing to write clear media to a terminal; give -o FILE or redirect stdout")
            }
            file = nil
            stdout = FileHandleOutput(FileHandle.standardOutput)
        }
    }

    /// True for an existing character device or FIFO.
    private static func isStream(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFCHR || type == S_IFIFO
    }

    func write(_ bytes: [UInt8]) throws(MediaError) {
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

    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaError) {
        if let file {
            do throws(AtomicFileError) {
                try file.write(bytes)
            } catch {
                throw MediaError(.io, "cannot write the output file")
            }
        } else if let stdout {
            try stdout.write(bytes)
        }
        bytesWritten += UInt64(bytes.count)
    }

    /// Moves a file output into place; stdout needs nothing.
    func finish() throws {
        do {
            try file?.commit()
        } catch {
            throw ToolFailure(output: error)
        }
    }

    /// Drops a partial file output.
    func abandon() {
        file?.discard()
    }
}
