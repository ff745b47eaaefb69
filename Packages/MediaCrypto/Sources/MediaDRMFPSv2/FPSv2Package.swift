// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMZIP

/// Where a package's entries come from: a stored ZIP read through any random-access source (a
/// file, memory, or an HTTP Range source supplied by another package), or a directory holding
/// the same entries as regular files. Creating one reads nothing; `FPSv2Admission` opens it and
/// runs the reader checks.
public struct FPSv2Package: Sendable {
    public enum Source: Sendable {
        case archive(any ZIPRandomAccessSource)
        case directory(String)
    }

    public let source: Source

    public init(archive source: any ZIPRandomAccessSource) {
        self.source = .archive(source)
    }

    /// An archive held in memory.
    public init(archiveData data: some DataProtocol) {
        self.source = .archive(ZIPMemorySource(data))
    }

    /// An archive file.
    public init(archivePath path: String) throws(FPSv2Error) {
        do {
            self.source = .archive(try ZIPFileSource(path: path))
        } catch {
            throw FPSv2Error(.io, "the package file could not be opened")
        }
    }

    /// A directory holding the entries as regular files, with nothing else in it.
    public init(directoryPath path: String) {
        self.source = .directory(path)
    }

    /// A directory when `path` names one, else an archive file.
    public init(path: String) throws(FPSv2Error) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FPSv2Error(.notFound, "the package path does not exist")
        }
        if isDirectory.boolValue {
            self.init(directoryPath: path)
        } else {
            try self.init(archivePath: path)
        }
    }

    public var isDirectory: Bool {
        if case .directory = source { return true }
        return false
    }
}

/// One entry as the central directory (or the file system) describes it, before it is read.
struct EntryInfo: Sendable {
    let name: String
    let size: UInt64
}

/// Read access to an opened package's entries. Archive reads verify the local header (against
/// the central directory, and with no extra field: the exact layout) and the CRC-32 (§4 #2)
/// before returning any byte; a local header that fails is refused with the §4.2 or §4.3 check
/// identifier. Directory reads verify the size listed when the directory was opened.
enum EntryStore: Sendable {
    case archive(ZIPReader)
    case directory(DirectoryEntries)

    func read(_ name: String, maxBytes: UInt64) throws(FPSv2Error) -> Data {
        switch self {
        case .archive(let reader):
            guard let entry = reader.entry(named: name) else { throw FPSv2Error(.notFound, "the package has no entry \(name)") }
            guard entry.uncompressedSize <= maxBytes else { throw FPSv2Error(.limitExceeded, "\(name) is larger than allowed") }
            do {
                return try reader.read(entry, requireExactLayout: true)
            } catch {
                throw Self.failure(error, name)
            }
        case .directory(let directory):
            return try directory.read(name, maxBytes: maxBytes)
        }
    }

    /// Where a stored entry's bytes lie in the archive file, its local header verified against
    /// the central directory in the exact layout (§4.2, §4.3); nil for a directory package.
    func storedRange(_ name: String) throws(FPSv2Error) -> Range<UInt64>? {
        guard case .archive(let reader) = self else { return nil }
        guard let entry = reader.entry(named: name) else { throw FPSv2Error(.notFound, "the package has no entry \(name)") }
        guard entry.compressionMethod == .stored, entry.compressedSize == entry.uncompressedSize else {
            throw FPSv2Error(.refused, "\(name) is not stored", check: .exactLayout)
        }
        do {
            let verified = try reader.verifiedExactEntry(entry)
            let start = verified.dataOffset ?? verified.localHeaderOffset
            return start..<(start + verified.compressedSize)
        } catch {
            throw Self.failure(error, name)
        }
    }

    /// A ZIP reader's failure on `name` as the admission check it breaks.
    private static func failure(_ error: ZIPError, _ name: String) -> FPSv2Error {
        switch error.code {
        case .headerMismatch, .badSignature: FPSv2Error(.refused, "\(name): \(error.reason)", check: .headersAgree)
        case .notExactLayout, .outOfBounds: FPSv2Error(.refused, "\(name): \(error.reason)", check: .exactLayout)
        case .crcMismatch: FPSv2Error(.corrupted, "\(name) failed its CRC-32 check: the package is corrupted")
        default: FPSv2Error(.io, "\(name) could not be read: \(error.reason)")
        }
    }

    func size(of name: String) -> UInt64? {
        switch self {
        case .archive(let reader): reader.entry(named: name)?.uncompressedSize
        case .directory(let directory): directory.sizes[name]
        }
    }
}

/// The regular files of a package directory. Subdirectories, symbolic links and other file
/// types are reported so admission can refuse them (§4 #4: no directories).
struct DirectoryEntries: Sendable {
    let path: String
    let entries: [EntryInfo]
    let sizes: [String: UInt64]
    /// Names that are not regular files.
    let nonFiles: [String]

    init(path: String) throws(FPSv2Error) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw FPSv2Error(.io, "the package directory could not be listed")
        }
        var entries: [EntryInfo] = []
        var sizes: [String: UInt64] = [:]
        var nonFiles: [String] = []
        for name in names.sorted() {
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + name)
            } catch {
                throw FPSv2Error(.io, "an entry of the package directory could not be examined")
            }
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                nonFiles.append(name)
                continue
            }
            let size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
            entries.append(EntryInfo(name: name, size: size))
            sizes[name] = size
        }
        self.path = path
        self.entries = entries
        self.sizes = sizes
        self.nonFiles = nonFiles
    }

    func read(_ name: String, maxBytes: UInt64) throws(FPSv2Error) -> Data {
        guard let size = sizes[name] else { throw FPSv2Error(.notFound, "the package has no entry \(name)") }
        guard size <= maxBytes, size <= UInt64(Int.max) else { throw FPSv2Error(.limitExceeded, "\(name) is larger than allowed") }
        guard let handle = FileHandle(forReadingAtPath: path + "/" + name) else {
            throw FPSv2Error(.io, "\(name) could not be opened")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            // One byte more than listed, so a file that grew since the listing is caught.
            data = try handle.read(upToCount: Int(size) + 1) ?? Data()
        } catch {
            throw FPSv2Error(.io, "\(name) could not be read")
        }
        guard UInt64(data.count) == size else { throw FPSv2Error(.io, "\(name) changed size while the package was open") }
        return data
    }
}
