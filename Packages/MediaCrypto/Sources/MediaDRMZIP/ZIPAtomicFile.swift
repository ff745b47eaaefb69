import Foundation
import MediaDRMEncoding

/// An output archive that appears under its final name only when complete: MediaDRMEncoding's
/// `AtomicFileWriter` (a temporary file in the same directory, synced and renamed by
/// `commit()`, removed if not committed, explicitly by `discard()` or when the object is
/// released) with a `ZIPFileSink` on its descriptor for a `ZIPWriter`.
public final class ZIPAtomicFile {
    private let file: AtomicFileWriter
    /// The sink to hand to a `ZIPWriter`.
    public let sink: ZIPFileSink

    public var destinationPath: String { file.destination }
    public var temporaryPath: String { file.temporaryPath }

    public init(path: String) throws(ZIPError) {
        guard !AtomicFileWriter.split(path).name.isEmpty else { throw ZIPError(.invalidArgument, "the destination has no file name") }
        do {
            file = try AtomicFileWriter(destination: path)
        } catch {
            throw Self.zipError(error)
        }
        sink = ZIPFileSink(descriptor: file.fileDescriptor, owns: false)
    }

    /// Syncs the temporary file and renames it onto the destination.
    public func commit() throws(ZIPError) {
        do {
            try file.commit()
        } catch {
            throw Self.zipError(error)
        }
    }

    /// Removes the temporary file; the destination is untouched.
    public func discard() { file.discard() }

    /// The path is the caller's own; the OS's reason says what to fix (a missing directory, a
    /// read-only file system, permissions).
    private static func zipError(_ error: AtomicFileError) -> ZIPError {
        switch error.code {
        case .notARegularFile: ZIPError(.invalidArgument, "the destination exists and is not a regular file")
        case .closed: ZIPError(.invalidArgument, "the atomic file was already committed or discarded")
        case .system: ZIPError(.io, "cannot write output '\(error.path)': \(error.reason)")
        }
    }
}

extension ZIPWriter {
    /// Writes an archive to `path` atomically: `body` adds the entries, then the archive is
    /// finished and renamed into place. If `body` or finishing throws, no file appears at `path`
    /// and the temporary file is removed; the error is rethrown unchanged.
    public static func writeAtomically(toPath path: String,
                                       layout: Layout = .standard,
                                       allowZIP64: Bool = false,
                                       forceZIP64: Bool = false,
                                       _ body: (ZIPWriter) throws -> Void) throws {
        let file = try ZIPAtomicFile(path: path)
        do {
            let writer = try ZIPWriter(sink: file.sink, layout: layout, allowZIP64: allowZIP64, forceZIP64: forceZIP64)
            try body(writer)
            try writer.finish()
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }
}
