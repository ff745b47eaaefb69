/// The constants of the fps-v2 profile (draft-arkavo-tdf-fairplay-01) that its writer (the
/// packager), its readers (`FPSv2Admission`, the client) and the key service (the KAS) share.
/// The order of a version 2 component list is `MediaComponentList.version2Order` in
/// MediaDRMMedia, below this module: the list's strict reader (`init(version2:)`) needs it there.
public enum FPSv2Profile {
    /// §4 #4: segment numbers run from 0 to 4092, so a component has at most 4,093 segments.
    public static let maxSegmentsPerComponent = 4_093

    /// §7.3: the EXT-X-KEY `KEYFORMAT` of FairPlay Streaming.
    public static let keyFormat = "com.apple.streamingkeydelivery"

    /// §7.3: the EXT-X-KEY `KEYFORMATVERSIONS`.
    public static let keyFormatVersions = "1"
}
