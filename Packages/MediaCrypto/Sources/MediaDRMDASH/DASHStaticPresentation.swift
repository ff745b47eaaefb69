import Foundation

/// The root of a static MPD (ISO/IEC 23009-1 §5.3.1, `type="static"`): one Period from zero, its
/// duration to the millisecond, the `cenc` namespace its `ContentProtection` elements use. The
/// packager's cmaf MPD (`isoff-live`, segment templates) and the KAS's fps-v2 views (`full`,
/// segment lists with byte ranges) differ only in `profiles` and their adaptation sets.
public enum DASHStaticPresentation {
    public static let liveProfile = "urn:mpeg:dash:profile:isoff-live:2011"
    /// The profile that allows `SegmentList` with `mediaRange` into one file.
    public static let fullProfile = "urn:mpeg:dash:profile:full:2011"

    /// The MPD document (UTF-8 XML) of one Period holding `adaptationSets`.
    public static func document(profiles: String, duration: Double, adaptationSets: [MPDElement]) throws(MPDWriterError) -> Data {
        let period = MPDElement("Period", [("id", "0"), ("start", "PT0S")], children: adaptationSets)
        let mpd = MPDElement("MPD", [
            ("xmlns", "urn:mpeg:dash:schema:mpd:2011"), DASHContentProtection.cencNamespace,
            ("profiles", profiles), ("type", "static"),
            ("mediaPresentationDuration", String(format: "PT%.3fS", duration)), ("minBufferTime", "PT2S"),
        ], children: [period])
        return Data(try MPDWriter.document(mpd).utf8)
    }
}
