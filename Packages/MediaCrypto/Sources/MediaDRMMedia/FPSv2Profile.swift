/// The constants of the fps-v2 profile (draft-arkavo-tdf-fairplay-01) that its writer (the
/// packager), its readers (`FPSv2Admission`, the client) and the key service (the KAS) share.
public enum FPSv2Profile {
    /// §4 #4: segment numbers run from 0 to 4092, so a component has at most 4,093 segments.
    public static let maxSegmentsPerComponent = 4_093

    /// §7.3: the EXT-X-KEY `KEYFORMAT` of FairPlay Streaming.
    public static let keyFormat = "com.apple.streamingkeydelivery"

    /// §7.3: the EXT-X-KEY `KEYFORMATVERSIONS`.
    public static let keyFormatVersions = "1"

    /// §3, §5.3: a version 2 package lists its components in this order, video first and audio
    /// only when present, each component id equal to its kind.
    public static let version2ComponentOrder: [MediaComponentKind] = [.video, .audio]
}
