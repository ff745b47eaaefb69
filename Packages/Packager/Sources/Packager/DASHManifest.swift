import Foundation
import MediaDRMDASH

/// The DASH MPD of a cmaf package (ISO/IEC 23009-1; docs/formats.md, "cmaf"): static, one
/// Period, an AdaptationSet per content type and language, a Representation per rendition with a
/// `SegmentTemplate` (`$Number$` from 1) and a `SegmentTimeline` of the written segments (they are
/// cut at IDR frames, so their durations differ). Every protected AdaptationSet signals `cbcs`
/// with its `cenc:default_KID`, the W3C common `pssh`, and ClearKey with the licence URL
/// placeholder the KAS replaces per playback (MediaDRMDASH's `DASHContentProtection`; its XML is
/// written by `MPDWriter`, which the KAS's fps-v2 views share).
enum DASHManifest {
    /// Stands for the ClearKey licence URL in the MPD until the KAS serves it for one playback.
    static let licenseURLPlaceholder = DASHContentProtection.licenseURLPlaceholder

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
        var elements: [MPDElement] = []
        for (n, set) in sets.enumerated() {
            var attributes = [("id", String(n)), ("contentType", set.contentType), ("mimeType", set.mimeType)]
            if let language = set.language { attributes.append(("lang", language)) }
            attributes += [("segmentAlignment", "true"), ("startWithSAP", "1")]
            var element = MPDElement("AdaptationSet", attributes)
            if let keyID = set.keyID {
                element.children += DASHContentProtection.elements(keyID: keyID, pssh: pssh, licenseURL: licenseURLPlaceholder)
            }
            if set.contentType == "text" { element.children.append(MPDElement("Role", [("schemeIdUri", "urn:mpeg:dash:role:2011"), ("value", "subtitle")])) }
            element.children += set.representations.map(representation)
            elements.append(element)
        }
        do {
            return try DASHStaticPresentation.document(profiles: DASHStaticPresentation.liveProfile, duration: duration,
                                                       adaptationSets: elements)
        } catch {
            throw PackagerError(.malformedInput, error.reason)
        }
    }

    static func representation(_ r: Representation) -> MPDElement {
        var attributes = [("id", r.id), ("bandwidth", String(r.bandwidth))]
        if let codecs = r.codecs { attributes.append(("codecs", codecs)) }
        var element = MPDElement("Representation", attributes + r.attributes)
        if let channels = r.channels {
            element.children.append(DASHAudioChannelConfiguration.element(channels: channels))
        }
        var template = [("timescale", String(r.timescale))]
        if let initialization = r.initialization { template.append(("initialization", initialization)) }
        template += [("media", r.media), ("startNumber", "1")]
        element.children.append(MPDElement("SegmentTemplate", template,
                                           children: [DASHSegmentTimeline.element(r.timeline)]))
        return element
    }
}
