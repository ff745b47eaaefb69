// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMZIP

// §4.1–§4.3 and the §12 limits read before any entry: the archive, its end records and central
// directory, its exact layout. For a directory package the ZIP rules do not apply.
extension AdmissionRun {
    func runContainerChecks() {
        let limits = options.limits
        step(.archiveSize) { () throws(FPSv2Error) -> Outcome in
            switch package.source {
            case .archive(let source):
                guard source.size <= limits.maxInputBytes else {
                    throw refuse(.archiveSize, "the archive is \(source.size) bytes, more than \(limits.maxInputBytes)")
                }
                return .passed("\(source.size) bytes")
            case .directory(let path):
                let directory = try DirectoryEntries(path: path)
                let total = directory.entries.reduce(UInt64(0)) { $0 &+ $1.size }
                guard total <= limits.maxInputBytes else {
                    throw refuse(.archiveSize, "the directory's entries total more than \(limits.maxInputBytes) bytes")
                }
                store = .directory(directory)
                entries = directory.entries
                return .passed("directory, \(total) bytes")
            }
        }

        // The ZIP reader checks the end records and the whole central directory at once; its
        // failure is attributed to the check whose rule it broke, and the other checks that need
        // an open archive are then not run.
        if case .archive(let source) = package.source, statuses[.archiveSize] == .passed {
            do {
                let reader = try ZIPReader(source: source, limits: limits.zipLimits)
                zipReader = reader
                store = .archive(reader)
                entries = reader.entries.map { EntryInfo(name: $0.name, size: $0.uncompressedSize) }
            } catch {
                zipOpenFailure = (Self.attribute(error), error.reason)
            }
        }

        let openChecks: [AdmissionCheck] = [.endRecord, .zip32, .entryCount, .expandedSize, .safeNames, .uniqueNames]
        for check in openChecks {
            step(check, requires: [.archiveSize]) { () throws(FPSv2Error) -> Outcome in
                try openCheck(check)
            }
        }
        let opened = Self.opened
        // The reader refuses an encrypted entry or an unknown method while opening: that refusal
        // belongs to this check, so it runs even when the open failed.
        step(.storedEntries, requires: [.archiveSize]) { () throws(FPSv2Error) -> Outcome in
            if let failure = zipOpenFailure {
                if failure.check == .storedEntries { throw refuse(.storedEntries, failure.reason) }
                return .notRun("the archive could not be opened (\(failure.check.section))")
            }
            guard let reader = zipReader else { return .notApplicable("a directory package is not a ZIP archive") }
            for entry in reader.entries {
                guard entry.compressionMethod == .stored else { throw refuse(.storedEntries, "\(entry.name) is not stored (method 0)") }
                guard !entry.usesDataDescriptor else { throw refuse(.storedEntries, "\(entry.name) uses a data descriptor") }
                guard entry.flags & 0x0001 == 0 else { throw refuse(.storedEntries, "\(entry.name) has the encryption flag") }
            }
            return .passed("\(reader.entries.count) stored entries")
        }

        // Eager: one pass over the local headers serves both §4.2 and §4.3 (an HTTP source pays
        // one request per header): a header that disagrees with the directory fails §4.2.
        // On read: the metadata entries' local headers are verified now (exact layout included),
        // then the layout is checked from the central directory alone; each segment's local
        // header is verified by the store when the segment is read (`EntryStore.read`).
        let deferred = options.localHeaders == .onRead
        var layoutFailure: ZIPError?
        if let reader = zipReader {
            do throws(ZIPError) {
                if deferred {
                    for entry in reader.entries where FPSv2EntryName(entry.name)?.isMetadata ?? true {
                        try reader.verifiedExactEntry(entry)
                    }
                    try reader.verifyExactLayout(storedOnly: true, readingLocalHeaders: false)
                } else {
                    try reader.verifyExactLayout(storedOnly: true)
                }
            } catch {
                layoutFailure = error
            }
        }
        step(.headersAgree, requires: opened + [.zip32, .storedEntries]) { () throws(FPSv2Error) -> Outcome in
            guard zipReader != nil else { return .notApplicable("a directory package has no local headers") }
            if let failure = layoutFailure, failure.code == .headerMismatch || failure.code == .badSignature || failure.code == .truncated {
                throw refuse(.headersAgree, failure.reason)
            }
            if deferred {
                return .verifiedOnRead("the metadata entries' local headers agree; each segment's is verified when it is read")
            }
            return .passed("every local header read agrees")
        }
        step(.exactLayout, requires: [.headersAgree]) { () throws(FPSv2Error) -> Outcome in
            guard zipReader != nil else { return .notApplicable("a directory package has no archive layout") }
            if let failure = layoutFailure { throw refuse(.exactLayout, failure.reason) }
            if deferred {
                return .verifiedOnRead("the central directory lays the entries back to back from offset 0, directory and end "
                    + "record after them; each segment's local header is checked to have no extra field when it is read")
            }
            return .passed("entries back to back from offset 0, directory and end record after them")
        }
    }

    private func openCheck(_ check: AdmissionCheck) throws(FPSv2Error) -> Outcome {
        let limits = options.limits
        if let failure = zipOpenFailure {
            if failure.check == check { throw refuse(check, failure.reason) }
            return .notRun("the archive could not be opened (\(failure.check.section))")
        }
        guard let reader = zipReader else {
            switch check {
            case .entryCount:
                guard entries.count <= limits.maxEntries else {
                    throw refuse(.entryCount, "the directory holds \(entries.count) entries, more than \(limits.maxEntries)")
                }
                return .passed("\(entries.count) entries")
            case .expandedSize:
                let total = entries.reduce(UInt64(0)) { $0 &+ $1.size }
                guard total <= limits.maxExpandedBytes else {
                    throw refuse(.expandedSize, "the directory's entries total more than \(limits.maxExpandedBytes) bytes")
                }
                return .passed("\(total) bytes")
            case .safeNames, .uniqueNames:
                return .passed("file names of one directory")
            default:
                return .notApplicable("a directory package is not a ZIP archive")
            }
        }
        switch check {
        case .endRecord:
            return .passed("central directory at \(reader.centralDirectoryOffset), \(reader.centralDirectorySize) bytes")
        case .zip32:
            guard !reader.isZIP64 else { throw refuse(.zip32, "the archive has ZIP64 end records") }
            return .passed("no ZIP64 end records")
        case .entryCount:
            return .passed("\(reader.entries.count) entries")
        case .expandedSize:
            let total = reader.entries.reduce(UInt64(0)) { $0 &+ $1.uncompressedSize }
            return .passed("\(total) bytes")
        case .safeNames, .uniqueNames:
            return .passed("\(reader.entries.count) names")
        default:
            return .passed("")
        }
    }

    /// The check whose rule a ZIP reader failure broke.
    static func attribute(_ error: ZIPError) -> AdmissionCheck {
        switch error.code {
        case .tooManyEntries:
            return .entryCount
        case .entryTooLarge:
            return .expandedSize
        case .limitExceeded:
            if error.reason.contains("name") { return .safeNames }
            if error.reason.contains("central directory") { return .endRecord }
            return .expandedSize
        case .unsafeName:
            return .safeNames
        case .duplicateName:
            return .uniqueNames
        case .unsupported:
            if error.reason.contains("multi-disk") { return .endRecord }
            if error.reason.contains("ZIP64") { return .zip32 }
            return .storedEntries
        default:
            return .endRecord
        }
    }
}
