/// A DRM system as the playback API and the delivery description name it (docs/delivery.md).
public enum DRMSystem: String, Sendable, CaseIterable {
    /// FairPlay Streaming (Apple platforms): certificate, raw SPC to the license URL, raw CKC.
    case fairplay
    /// The open path: TDF keys from the KAS (`/media/v1` or `/kas/v2`); what `player` uses.
    case tdf
    /// W3C ClearKey, for browsers.
    case clearkey

    /// The member of a delivery source's `drm` object that names this system.
    public var descriptionKey: String {
        switch self {
        case .fairplay: "fairplay"
        case .tdf: "com.arkavo.tdf"
        case .clearkey: "org.w3.clearkey"
        }
    }

    /// `drmSystem` in a playback request and answer.
    public var playbackName: String { rawValue }
}
