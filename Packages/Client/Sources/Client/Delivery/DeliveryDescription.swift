import Foundation
import MediaDRMJSON

/// The answer of `GET /v2/media/{assetId}` (JW Platform delivery API shape, docs/delivery.md):
/// a playlist of one item whose `sources` come in no fixed order. A source is found by its DRM
/// system (`source(for:)`), never by its position.
public struct DeliveryDescription: Sendable {
    /// One `playlist[].sources[]` entry.
    public struct Source: Sendable, Equatable {
        /// The media URL (`file`), signed and short-lived.
        public let file: String
        /// The MIME type (`type`), `application/vnd.apple.mpegurl` for HLS.
        public let type: String
        /// The DRM systems the source's `drm` object names, with their members' string values
        /// (`processSpcUrl`, `certificateUrl`, `kasUrl`, `playbackUrl`, `licenseUrl`, ...).
        public let drm: [DRMSystem: [String: String]]
    }

    public let title: String?
    /// `playlist[0].mediaid`: the asset id.
    public let mediaID: String
    /// `playlist[0].duration` in seconds, when given.
    public let duration: Double?
    public let sources: [Source]

    static let answer = "delivery description"
    /// Sources read at most; a real description has a handful.
    static let maxSources = 64

    public init(json body: Data) throws(PlaybackError) {
        let object = try DeliveryJSON.object(body, answer: Self.answer)
        let item = try DeliveryJSON.read(Self.answer) { () throws(JSONError) -> JSONObject in
            let playlist = try object.requireArray("playlist")
            guard playlist.count == 1, let first = playlist.first?.object else {
                throw JSONError(.typeMismatch, "playlist must hold exactly one item object")
            }
            return first
        }
        title = try DeliveryJSON.read(Self.answer) { () throws(JSONError) in try object.optionalString("title") }
        mediaID = try DeliveryJSON.read(Self.answer) { () throws(JSONError) in try item.requireString("mediaid") }
        duration = try DeliveryJSON.read(Self.answer) { () throws(JSONError) -> Double? in
            guard item["duration"] != nil else { return nil }
            return try item.requireDouble("duration")
        }
        let entries = try DeliveryJSON.read(Self.answer) { () throws(JSONError) in try item.requireArray("sources") }
        guard entries.count <= Self.maxSources else {
            throw PlaybackError(.malformed, "the \(Self.answer) has more than \(Self.maxSources) sources")
        }
        var sources: [Source] = []
        for entry in entries {
            let parsed = try DeliveryJSON.read(Self.answer) { () throws(JSONError) -> (String, String, JSONObject?) in
                guard let source = entry.object else { throw JSONError(.typeMismatch, "a source is not an object") }
                return (try source.requireString("file"), try source.requireString("type"), try source.optionalObject("drm"))
            }
            var drm: [DRMSystem: [String: String]] = [:]
            for system in DRMSystem.allCases {
                guard let member = parsed.2?[system.descriptionKey] else { continue }
                guard let members = member.object else {
                    throw PlaybackError(.malformed, "the \(Self.answer): drm.\(system.descriptionKey) is not an object")
                }
                var strings: [String: String] = [:]
                for (key, value) in members { if let text = value.string { strings[key] = text } }
                drm[system] = strings
            }
            sources.append(Source(file: parsed.0, type: parsed.1, drm: drm))
        }
        self.sources = sources
    }

    /// The one source protected by `system`. Two such sources make the description ambiguous
    /// (their order means nothing), and none means this title has no such source.
    public func source(for system: DRMSystem) throws(PlaybackError) -> Source {
        let matching = sources.filter { $0.drm[system] != nil }
        guard matching.count == 1, let source = matching.first else {
            throw PlaybackError(matching.isEmpty ? .denied : .malformed, matching.isEmpty
                ? "the \(Self.answer) has no source for \(system.rawValue)"
                : "the \(Self.answer) has more than one source for \(system.rawValue)")
        }
        return source
    }
}
