import MediaDRMZIP

/// The ZIP reader: central directory, every entry read and its CRC verified, and the exact
/// layout check fps-v2 applies.
enum ZIPTarget {
    static let target = FuzzTarget("zip", "ZIPReader: central directory, every entry (CRC), exact layout",
                                   mutation: .archiveEntries(.standard)) { input throws(FuzzViolation) in
        guard let reader = try? ZIPReader(source: ZIPMemorySource(input)) else { return .refused }
        var everyEntryRead = true
        for entry in reader.entries {
            guard let data = try? reader.read(entry) else {
                everyEntryRead = false
                continue
            }
            guard UInt64(data.count) == entry.uncompressedSize else {
                throw FuzzViolation("zip", "an entry read back with a size other than its declared one")
            }
            _ = try? reader.read(entry, requireExactLayout: true)
        }
        try? reader.verifyExactLayout()
        return everyEntryRead ? .accepted : .refused
    }
}
