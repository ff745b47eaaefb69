import Foundation

/// One title of the catalog (docs/delivery.md#catalog): what `kas assets add` read from a
/// package and where the origin serves it.
public struct CatalogEntry: Sendable, Equatable {
    /// The package's policy uuid (lower case): the `assetId` of every delivery route.
    public var assetID: String
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

    package init(assetID: String, title: String, duration: Double, profile: CatalogProfile, components: [String],
                mediaPath: TitlePath, policyJSON: Data, manifest: Data?) {
        self.assetID = assetID
        self.title = title
        self.duration = duration
        self.profile = profile
        self.components = components
        self.mediaPath = mediaPath
        self.policyJSON = policyJSON
        self.manifest = manifest
    }
}

/// The package profiles the catalog holds (docs/formats.md).
public enum CatalogProfile: String, Sendable, Equatable, CaseIterable {
    case fpsV2 = "fps-v2"
    case tdfHLS = "tdf-hls"
}
