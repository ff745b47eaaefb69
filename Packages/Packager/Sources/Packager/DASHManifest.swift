import Foundation
import MediaDRMEncoding
import MediaDRMMedia

/// The DASH MPD of a cmaf package (ISO/IEC 23009-1; docs/formats.md, "cmaf"): static, one
/// Period, an AdaptationSet per content type and language, a Representation per rendition with a
/// `SegmentTemplate` (`$Number$` from 1) and a `SegmentTimeline` of the written segments (they are
/// cut at IDR frames, so their durations differ). Every protected AdaptationSet signals `cbcs`
/// with its `cenc:default_KID`, the W3C common `pssh`, and ClearKey with the licence URL
/// placeholder the KAS replaces per playback.
enum DASHManifest {
    /// Stands for the ClearKey licence URL in the MPD until the KAS serves it for one playback.
    static let licenseURLPlaceholder = "{{MEDIADRM_CLEARKEY_LICENSE_URL}}"
    static let mp4ProtectionScheme = "urn:mpeg:dash:mp4protection:2011"
    static let clearKeyScheme = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"
    static let commonSystemScheme = "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b"

    struct Representation {
        var id: String
        var bandwidth: Int
        var codecs: String?
        /// Attributes of the kind (`width`, `height`, `frameRate`; `audioSamplingRate`).
        var attributes: [(String, String)]
        var initialization: String?
        /// With `$Number$`.
        var media: String
        var timescale: UInt32
        /// Each segment's start and duration in `timescale` units.
        var timeline: [(start: Int64, duration: Int64)]
        /// AudioChannelConfiguration (audio).
        var channels: Int?
    }

    struct AdaptationSet {
        var contentType: String
        var mimeType: String
        var language: String?
        /// nil for a clear set (subtitles).
        var keyID: [UInt8]?
        var representations: [Representation]
    }

    /// - Parameter pssh: the serialised common `pssh` box of the package's key IDs.
    static func document(duration: Double, sets: [AdaptationSet], pssh: [UInt8]) throws(PackagerError) -> Data {
        var period = XMLElement("Period", [("id", "0"), ("start", "PT0S")])
        for (n, set) in sets.enumerated() {
            var attributes = [("id", String(n)), ("contentType", set.contentType), ("mimeType", set.mimeType)]
            if let language = set.language { attributes.append(("lang", language)) }
            attributes += [("segmentAlignment", "true"), ("startWithSAP", "1")]
            var element = XMLElement("AdaptationSet", attributes)
            if let keyID = set.keyID { element.children += protection(keyID: keyID, pssh: pssh) }
            if set.contentType == "text" { element.children.append(XMLElement("Role", [("schemeIdUri", "urn:mpeg:dash:role:2011"), ("value", "subtitle")])) }
            element.children += set.representations.map(representation)
            period.children.append(element)
        }
        let mpd = XMLElement("MPD", [
            ("xmlns", "urn:mpeg:dash:schema:mpd:2011"), ("xmlns:cenc", "urn:mpeg:cenc:2013"),
            ("profiles", "urn:mpeg:dash:profile:isoff-live:2011"), ("type", "static"),
            ("mediaPresentationDuration", String(format: "PT%.3fS", duration)), ("minBufferTime", "PT2S"),
        ], children: [period])
        return Data(try XMLWriter.document(mpd).utf8)
    }

    /// `cbcs` with the default KID, the common `pssh`, and ClearKey with its licence URL in both
    /// the DASH-IF CPS form and the older ClearKey guideline form (dash.js and Shaka Player each
    /// read one of them).
    static func protection(keyID: [UInt8], pssh: [UInt8]) -> [XMLElement] {
        [
            XMLElement("ContentProtection", [("schemeIdUri", mp4ProtectionScheme), ("value", "cbcs"),
                                             ("cenc:default_KID", CanonicalUUID.text(keyID) ?? "")]),
            XMLElement("ContentProtection", [("schemeIdUri", commonSystemScheme)],
                       children: [XMLElement("cenc:pssh", text: Base64.encode(Data(pssh)))]),
            XMLElement("ContentProtection", [("schemeIdUri", clearKeyScheme), ("value", "ClearKey1.0")], children: [
                XMLElement("dashif:Laurl", [("xmlns:dashif", "https://dashif.org/CPS")], text: licenseURLPlaceholder),
                XMLElement("clearkey:Laurl", [("xmlns:clearkey", "http://dashif.org/guidelines/clearKey"), ("Lic_type", "EME-1.0")],
                           text: licenseURLPlaceholder),
            ]),
        ]
    }

    static func representation(_ r: Representation) -> XMLElement {
        var attributes = [("id", r.id), ("bandwidth", String(r.bandwidth))]
        if let codecs = r.codecs { attributes.append(("codecs", codecs)) }
        var element = XMLElement("Representation", attributes + r.attributes)
        if let channels = r.channels {
            element.children.append(XMLElement("AudioChannelConfiguration", [
                ("schemeIdUri", "urn:mpeg:dash:23003:3:audio_channel_configuration:2011"), ("value", String(channels))]))
        }
        var template = [("timescale", String(r.timescale))]
        if let initialization = r.initialization { template.append(("initialization", initialization)) }
        template += [("media", r.media), ("startNumber", "1")]
        element.children.append(XMLElement("SegmentTemplate", template,
                                           children: [XMLElement("SegmentTimeline", children: timeline(r.timeline))]))
        return element
    }

    /// `S` elements, a run of equal contiguous durations as one `S` with `r` (repeats after the first).
    static func timeline(_ segments: [(start: Int64, duration: Int64)]) -> [XMLElement] {
        var runs: [(start: Int64, duration: Int64, repeats: Int)] = []
        var expected: Int64?
        for segment in segments {
            if let last = runs.last, last.duration == segment.duration, expected == segment.start {
                runs[runs.count - 1].repeats += 1
            } else {
                runs.append((segment.start, segment.duration, 0))
            }
            expected = segment.start + segment.duration
        }
        return runs.map { run in
            XMLElement("S", [("t", String(run.start)), ("d", String(run.duration))] + (run.repeats > 0 ? [("r", String(run.repeats))] : []))
        }
    }
}
