import MediaDRMHLS
import MediaDRMZIP
import MediaDRMMedia

/// The fps-v2 import limits (draft-arkavo-tdf-fairplay-01 §12), enforced incrementally: the
/// archive size first, then the central directory (entry count, size sums), then each entry that
/// admission reads, before it is read.
public struct FPSv2Limits: Sendable, Equatable {
    /// `maxInputBytes`: the archive (or, for a directory, the sum of its entries).
    public var maxInputBytes: UInt64
    /// `maxExpandedBytes`: the sum of the entries' sizes.
    public var maxExpandedBytes: UInt64
    /// `maxEntries`: six fixed entries and up to `FPSv2Profile.maxSegmentsPerComponent` segments
    /// for each of two components.
    public var maxEntries: Int
    /// `maxManifestBytes`: bounds `manifest.json`, `master.m3u8`, every `<id>.m3u8` and every
    /// `<id>-init.mp4`.
    public var maxManifestBytes: Int

    public init(maxInputBytes: UInt64 = 4_294_967_295, maxExpandedBytes: UInt64 = 4_294_967_295,
                maxEntries: Int = 8_192, maxManifestBytes: Int = 1_048_576) {
        self.maxInputBytes = maxInputBytes
        self.maxExpandedBytes = maxExpandedBytes
        self.maxEntries = maxEntries
        self.maxManifestBytes = maxManifestBytes
    }

    public static let `default` = FPSv2Limits()

    /// The ZIP reader's limits for these. ZIP64 is let through the reader so that admission can
    /// name it as the §4.1 failure rather than as an unreadable archive.
    var zipLimits: ZIPLimits {
        ZIPLimits(maxEntries: maxEntries, maxEntrySize: maxExpandedBytes, maxTotalUncompressed: maxExpandedBytes,
                  maxNameLength: 1024, maxCentralDirectorySize: maxEntries * (46 + 1024),
                  maxArchiveSize: UInt64.max, allowZIP64: true)
    }

    var playlistLimits: HLSLimits {
        var limits = HLSLimits.fpsV2
        limits.maxBytes = maxManifestBytes
        return limits
    }
}
