import Foundation
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia

/// One title of the catalog (docs/delivery.md#catalog): what `kas assets add` read from a
/// package and where the origin serves it.
public struct CatalogEntry: Sendable, Equatable {
    /// The package's policy uuid (lower case): the `assetId` of every delivery route.
    public var assetID: String
    /// The title's short id (`kas assets add` draws one, or takes `--media-id`), accepted wherever
    /// `assetID` is; nil for an entry catalogued before media ids (`kas assets add` it again).
    public var mediaID: MediaID?
    public var title: String
    /// Seconds of media (the longest component).
    public var duration: Double
    public var profile: CatalogProfile
    /// Component ids in package order (`video`, `audio`).
    public var components: [String]
    /// Where the origin serves it, below the origin root.
    package var mediaPath: TitlePath
    /// The TDF policy JSON of the package (its `body.dataAttributes`, `dissem` and media rules
    /// are what a playback is checked against before any URL is handed out).
    public var policyJSON: Data
    /// fps-v2 only: `manifest.json` exactly as packaged, which the FairPlay licence URL sends to
    /// the key-request path in place of the player. Nil for tdf-hls.
    public var manifest: Data?
    /// The key id (the init segments' `tenc` default_KID) of each component, in package order:
    /// what an EME ClearKey licence request names. fps-v2 and cmaf; empty for tdf-hls.
    public var keyIDs: [CatalogKeyID]
    /// cmaf: the package's manifests as packaged (`manifest.mpd`, `master.m3u8`,
    /// `<rendition>.m3u8`), each strictly read and bounded when it was added: the KAS serves each
    /// playback its own copy with signed URIs (`PlaybackManifests`). fps-v2 (a `.tdf` file): its
    /// views under the same names (`FPSv2Views`). Empty otherwise.
    public var manifests: [String: Data]
    /// A live tdf-hls stream's event (`--live`); nil for a VOD title. `duration` is then what the
    /// playlists listed when it was added.
    public var live: CatalogLiveEvent?
    /// What the title is about (`kas assets add --description`, at most `maxDescriptionBytes`);
    /// empty when none was given. The delivery API's `description`.
    public var description: String
    /// When the title was first catalogued: adding it again keeps it (`kas assets add`), so the
    /// delivery API's `pubdate` stays. Nil until a store's `put` stamps it with its `now`.
    public var publishedAt: Date?
    /// The WebVTT subtitle renditions of a tdf-hls or cmaf title, in master playlist order;
    /// empty otherwise. The delivery API's `tracks`.
    package var subtitles: [CatalogSubtitle]
    /// Where the origin serves the title's poster frames (`CatalogPosters`), nil when it has none.
    package var posterPath: TitlePath?

    /// The longest `description` a title may have, in UTF-8 bytes.
    public static let maxDescriptionBytes = 4096

    package init(assetID: String, title: String, duration: Double, profile: CatalogProfile, components: [String],
                mediaPath: TitlePath, policyJSON: Data, manifest: Data?, keyIDs: [CatalogKeyID] = [],
                manifests: [String: Data] = [:], live: CatalogLiveEvent? = nil, mediaID: MediaID? = nil,
                description: String = "", publishedAt: Date? = nil, subtitles: [CatalogSubtitle] = [],
                posterPath: TitlePath? = nil) {
        self.assetID = assetID
        self.mediaID = mediaID
        self.title = title
        self.duration = duration
        self.profile = profile
        self.components = components
        self.mediaPath = mediaPath
        self.policyJSON = policyJSON
        self.manifest = manifest
        self.keyIDs = keyIDs
        self.manifests = manifests
        self.live = live
        self.description = description
        self.publishedAt = publishedAt
        self.subtitles = subtitles
        self.posterPath = posterPath
    }

    /// `"mediaId"` for the JSON answers that name the title, none when it has no media id.
    package var mediaIDMember: [(String, JSONValue)] {
        mediaID.map { [("mediaId", .string($0.text))] } ?? []
    }

    /// The stores' text of `keyIDs`: `video=<32 hex>,audio=<32 hex>`; nil when there are none.
    package var keyIDsText: String? {
        keyIDs.isEmpty ? nil : keyIDs.map { "\($0.component)=\(Hex.encode($0.keyID))" }.joined(separator: ",")
    }

    /// `keyIDsText` read back; an unreadable text reads as no key ids.
    package static func keyIDs(text: String?) -> [CatalogKeyID] {
        guard let text, !text.isEmpty else { return [] }
        var keys: [CatalogKeyID] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let bytes = try? Hex.decode(String(parts[1])), bytes.count == 16 else { return [] }
            keys.append(CatalogKeyID(component: String(parts[0]), keyID: Data(bytes)))
        }
        return keys
    }

    /// The stores' text of `manifests`: a JSON object of name to text; nil when there are none.
    package var manifestsText: String? {
        guard !manifests.isEmpty else { return nil }
        let members = manifests.keys.sorted().map { ($0, JSONValue.string(String(decoding: manifests[$0] ?? Data(), as: UTF8.self))) }
        return String(decoding: JSONWriter.write(.object(JSONObject(members)), options: [.sortedKeys]), as: UTF8.self)
    }

    /// `manifestsText` read back; an unreadable text reads as none.
    package static func manifests(text: String?) -> [String: Data] {
        guard let text, case .object(let object)? = try? JSONParser.parse(Array(text.utf8), limits: JSONLimits(maxBytes: 1 << 26, maxDepth: 4))
        else { return [:] }
        var manifests: [String: Data] = [:]
        for (name, value) in object.members {
            guard case .string(let body) = value else { return [:] }
            manifests[name] = Data(body.utf8)
        }
        return manifests
    }
}

/// One component's key id (16 bytes), as its init segments carry it.
public struct CatalogKeyID: Sendable, Equatable {
    public var component: String
    public var keyID: Data

    public init(component: String, keyID: Data) {
        self.component = component
        self.keyID = keyID
    }
}

/// The package profiles the catalog holds (docs/formats.md).
public enum CatalogProfile: String, Sendable, Equatable, CaseIterable {
    case fpsV2 = "fps-v2"
    case tdfHLS = "tdf-hls"
    /// A `--profile cmaf` directory (docs/formats.md): plain CMAF `cbcs`, HLS and DASH, its keys
    /// in an fps-v2-shaped `manifest.json`.
    case cmaf
}
