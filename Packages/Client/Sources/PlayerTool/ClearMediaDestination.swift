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
/// a terminal. Shared by the verbs that output clear media. For `player play` (`parts`), a
/// directory (`-o DIR/`, created when absent, or an existing directory) holds the output as parts,
/// `part-0.mp4`, `part-1.mp4`, …: a live stream starts a new part at each change of init
/// (`LivePartedOutput`, docs/live.md); each part is written atomically and stays once complete,
/// even if a later one fails.
final class ClearMediaDestination: MediaOutput, LivePartedOutput {
    private var file: AtomicFileWriter?
    private let stdout: FileHandleOutput?
    /// The output file, or the directory of parts.
    let path: String?
    private let directory: String?
    private var partPath: String?
    private(set) var bytesWritten: UInt64 = 0

    /// Checks the destination before any work starts: clear media never goes to a terminal.
    init(path: String?, parts: Bool = false) throws {
        self.path = path
        directory = parts ? try path.flatMap(Self.partsDirectory) : nil
        if let directory {
            stdout = nil
            try openPart(0, in: directory)
        } else if let path, Self.isStream(path) {
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

    var writesParts: Bool { directory != nil }

    /// The file of part `number` in the output directory.
    static func partName(_ number: Int) -> String { "part-\(number).mp4" }

    func startPart(_ number: Int) throws(MediaError) {
        guard let directory else { throw MediaError(.io, "the output is one file; a new part needs a directory (-o DIR/)") }
        do { try file?.commit() } catch { throw MediaError(.io, "cannot write the output part '\(partPath ?? directory)'") }
        do { try openPart(number, in: directory) } catch { throw MediaError(.io, "cannot write the output part \(number) in '\(directory)'") }
    }

    private func openPart(_ number: Int, in directory: String) throws(ToolFailure) {
        let path = (directory as NSString).appendingPathComponent(Self.partName(number))
        do { file = try AtomicFileWriter(destination: path) } catch { throw ToolFailure(output: error) }
        partPath = path
    }

    /// `-o DIR/` (made when absent, its parent must exist) or an existing directory: the
    /// directory of parts; nil for any other path.
    private static func partsDirectory(_ path: String) throws -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return isDirectory.boolValue ? path : nil }
        guard path.hasSuffix("/") else { return nil }
        guard mkdir(path, 0o755) == 0 else {
            throw ToolFailure("cannot create the output directory '\(path)': \(String(cString: strerror(errno)))")
        }
        return path
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
