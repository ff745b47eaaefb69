import Foundation
import MediaDRMZIP
#if canImport(Glibc)
import Glibc
#endif

/// Where a package's entries go, in order. Nothing appears at the destination until `commit`;
/// `discard` (or release without commit) removes every trace. `finish` completes the package
/// under its temporary name, so it can be checked (admission) before it is moved into place.
public protocol PackageSink: AnyObject {
    func add(name: String, bytes: [UInt8]) throws(PackagerError)
    /// Completes the package and returns its temporary path (a file or a directory).
    func finish() throws(PackagerError) -> String
    func commit() throws(PackagerError)
    func discard()
}

/// The stored ZIP: the fps-v2 exact layout, or with `zip64` a standard-layout archive with ZIP64
/// records on every entry and at the end (fps-v2 readers refuse it). Written under a temporary
/// name and renamed.
public final class ZIPPackageSink: PackageSink {
    private let file: ZIPAtomicFile
    private let writer: ZIPWriter
    private var done = false
    private var finished = false

    public init(path: String, zip64: Bool) throws(PackagerError) {
        do {
            file = try ZIPAtomicFile(path: path)
            writer = try ZIPWriter(sink: file.sink, layout: zip64 ? .standard : .exact, allowZIP64: zip64, forceZIP64: zip64)
        } catch {
            throw PackagerError(.io, "the output archive could not be created: \(error.reason)")
        }
    }

    public func add(name: String, bytes: [UInt8]) throws(PackagerError) {
        do { try writer.addEntry(name: name, data: bytes, method: .stored, modificationDate: nil) } catch {
            throw PackagerError(error.code == .io ? .io : .limitExceeded, "writing '\(name)' into the archive failed: \(error.reason)")
        }
    }

    public func finish() throws(PackagerError) -> String {
        if !finished {
            do { _ = try writer.finish() } catch {
                file.discard()
                throw PackagerError(.io, "finishing the archive failed: \(error.reason)")
            }
            finished = true
        }
        return file.temporaryPath
    }

    public func commit() throws(PackagerError) {
        _ = try finish()
        do {
            try file.commit()
            done = true
        } catch {
            file.discard()
            throw PackagerError(.io, "moving the archive into place failed: \(error.reason)")
        }
    }

    public func discard() {
        guard !done else { return }
        done = true
        file.discard()
    }

    deinit { discard() }
}

/// The same entries as files of a directory, built in a hidden sibling directory and renamed
/// into place (onto an absent or empty directory).
public final class DirectoryPackageSink: PackageSink {
    public let destination: String
    public let temporary: String
    private var done = false

    public init(path: String) throws(PackagerError) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        destination = trimmed
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: trimmed, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw PackagerError(.io, "the output '\(path)' exists and is not a directory") }
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: trimmed)) ?? ["?"]
            guard contents.isEmpty else { throw PackagerError(.io, "the output directory '\(path)' is not empty") }
        }
        let url = URL(fileURLWithPath: trimmed)
        let parent = url.deletingLastPathComponent().path
        let suffix = String(UInt64.random(in: 0 ... UInt64.max), radix: 36)
        temporary = (parent as NSString).appendingPathComponent(".\(url.lastPathComponent).\(suffix).partial")
        guard mkdir(temporary, 0o755) == 0 else {
            throw PackagerError(.io, "cannot write output '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    public func add(name: String, bytes: [UInt8]) throws(PackagerError) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        // A name is relative and stays inside the package (the cmaf profile's `<rendition>/<n>.m4s`).
        guard !name.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw PackagerError(.invalidArgument, "'\(name)' is not a relative name inside the package")
        }
        var directory = temporary
        for part in parts.dropLast() {
            directory = (directory as NSString).appendingPathComponent(String(part))
            guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
                throw PackagerError(.io, "the directory of '\(name)' could not be created in the output directory")
            }
        }
        let path = (temporary as NSString).appendingPathComponent(name)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PackagerError(.io, "'\(name)' could not be created in the output directory") }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress.map { $0 + written }, bytes.count - written)
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw PackagerError(.io, "writing '\(name)' failed") }
            written += n
        }
    }

    public func finish() throws(PackagerError) -> String { temporary }

    public func commit() throws(PackagerError) {
        // rename(2) replaces an empty directory atomically.
        guard rename(temporary, destination) == 0 else {
            discard()
            throw PackagerError(.io, "the finished package could not be moved to '\(destination)'")
        }
        done = true
    }

    public func discard() {
        guard !done else { return }
        done = true
        try? FileManager.default.removeItem(atPath: temporary)
    }

    deinit { discard() }
}
