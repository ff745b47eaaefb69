// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

// §4.4 entry names and the §12 size limit of the entries admission reads; then the reads of
// manifest.json and master.m3u8 (§4.2: CRC-32 verified).
extension AdmissionRun {
    static let opened: [AdmissionCheck] = [.endRecord, .entryCount, .expandedSize, .safeNames, .uniqueNames]

    func runEntryNameChecks() {
        let limits = options.limits
        step(.entryNames, requires: Self.opened) { () throws(FPSv2Error) -> Outcome in
            if case .directory(let directory)? = store, let first = directory.nonFiles.first {
                throw refuse(.entryNames, "\(Self.shown(first)) is not a regular file (no directories or links)")
            }
            var parsed: [FPSv2EntryName] = []
            parsed.reserveCapacity(entries.count)
            for entry in entries {
                guard let name = FPSv2EntryName(entry.name) else {
                    throw refuse(.entryNames, "\(Self.shown(entry.name)) is not an fps-v2 entry name")
                }
                parsed.append(name)
            }
            names = parsed
            return .passed("\(parsed.count) entries")
        }
        step(.requiredEntries, requires: [.entryNames]) { () throws(FPSv2Error) -> Outcome in
            guard names.contains(.manifest) else { throw refuse(.requiredEntries, "manifest.json is missing") }
            guard names.contains(.master) else { throw refuse(.requiredEntries, "master.m3u8 is missing") }
            return .passed("")
        }
        step(.metadataSizes, requires: [.entryNames]) { () throws(FPSv2Error) -> Outcome in
            for entry in entries {
                guard let name = FPSv2EntryName(entry.name), name.isMetadata else { continue }
                guard entry.size <= UInt64(limits.maxManifestBytes) else {
                    throw refuse(.metadataSizes, "\(entry.name) is \(entry.size) bytes, more than \(limits.maxManifestBytes)")
                }
            }
            return .passed("")
        }
        step(.manifestEntryRead, requires: [.requiredEntries, .metadataSizes, .headersAgree, .exactLayout]) { () throws(FPSv2Error) -> Outcome in
            guard let store else { throw refuse(.manifestEntryRead, "the package is not open") }
            do throws(FPSv2Error) {
                manifestBytes = try store.read(FPSv2EntryName.manifestName, maxBytes: UInt64(limits.maxManifestBytes))
                masterBytes = try store.read(FPSv2EntryName.masterName, maxBytes: UInt64(limits.maxManifestBytes))
            } catch {
                throw refuse(.manifestEntryRead, error.reason)
            }
            return .passed("")
        }
    }

    /// An entry name as a reason may show it: printable ASCII only, shortened.
    static func shown(_ name: String) -> String {
        let printable = name.unicodeScalars.map { scalar -> String in
            (scalar.value >= 0x20 && scalar.value < 0x7F) ? String(scalar) : "?"
        }.joined()
        let short = printable.count > 80 ? String(printable.prefix(80)) + "…" : printable
        return "\"\(short)\""
    }
}
