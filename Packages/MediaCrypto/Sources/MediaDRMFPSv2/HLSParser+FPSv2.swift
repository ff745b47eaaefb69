// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMHLS
import MediaDRMMedia

extension HLSParser.Mode {
    /// The closed grammar of the fps-v2 profile §7 (`FPSv2Grammar`), with `HLSLimits.fpsV2`.
    public static let fpsV2Strict = HLSParser.Mode(strict: "fps-v2", grammar: FPSv2Grammar(), defaultLimits: .fpsV2)
}

extension HLSLimits {
    /// fps-v2 §12: `maxManifestBytes` bounds every playlist; at most
    /// `FPSv2Profile.maxSegmentsPerComponent` segments (§4). The line bound follows from it: a
    /// dozen header lines plus two lines per segment.
    public static let fpsV2 = HLSLimits(maxBytes: FPSv2Limits.default.maxManifestBytes,
                                        maxLines: 16 + 2 * FPSv2Profile.maxSegmentsPerComponent,
                                        maxSegments: FPSv2Profile.maxSegmentsPerComponent, maxAttributes: 16)
}
