/// Bounds a reader enforces from the central directory alone, before any entry is read and
/// before memory is allocated for entries.
public struct ZIPLimits: Sendable, Equatable {
    /// Most entries accepted in the central directory.
    public var maxEntries: Int
    /// Largest uncompressed (and compressed) size of one entry.
    public var maxEntrySize: UInt64
    /// Largest sum of the uncompressed sizes of all entries.
    public var maxTotalUncompressed: UInt64
    /// Longest entry name, in UTF-8 bytes.
    public var maxNameLength: Int
    /// Largest central directory read into memory when the archive is opened.
    public var maxCentralDirectorySize: Int
    /// Largest archive accepted.
    public var maxArchiveSize: UInt64
    /// Whether ZIP64 records and extra fields are accepted.
    public var allowZIP64: Bool

    public init(maxEntries: Int = 65_535 * 4,
                maxEntrySize: UInt64 = 8 << 30,
                maxTotalUncompressed: UInt64 = 64 << 30,
                maxNameLength: Int = 1024,
                maxCentralDirectorySize: Int = 64 << 20,
                maxArchiveSize: UInt64 = UInt64.max,
                allowZIP64: Bool = true) {
        self.maxEntries = maxEntries
        self.maxEntrySize = maxEntrySize
        self.maxTotalUncompressed = maxTotalUncompressed
        self.maxNameLength = maxNameLength
        self.maxCentralDirectorySize = maxCentralDirectorySize
        self.maxArchiveSize = maxArchiveSize
        self.allowZIP64 = allowZIP64
    }

    public static let `default` = ZIPLimits()

    /// The fps-v2 import limits (draft-arkavo-tdf-fairplay-01 §12): a ZIP32 archive of at most
    /// 4,294,967,295 bytes, at most 8,192 entries, no ZIP64.
    public static let fpsV2 = ZIPLimits(maxEntries: 8_192,
                                        maxEntrySize: 4_294_967_295,
                                        maxTotalUncompressed: 4_294_967_295,
                                        maxNameLength: 1024,
                                        maxCentralDirectorySize: 8_192 * (46 + 1024),
                                        maxArchiveSize: 4_294_967_295,
                                        allowZIP64: false)
}
