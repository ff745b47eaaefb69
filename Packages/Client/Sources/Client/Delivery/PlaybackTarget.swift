import MediaDRMMedia

/// What `player play` was asked to play: the rule of docs/delivery.md "The player's rule".
///
/// - an http(s) URL whose path starts with `/v2/media/` is a delivery description;
/// - `--asset ID` (with `--kas`) asks the key service's `/media/v1/playback`;
/// - a `.m3u8` URL, a local `.m3u8` file or a directory holding `master.m3u8` is tdf-hls;
/// - anything else is an fps-v2 package (file, directory or URL) (`PlaybackSource`).
public enum PlaybackTarget: Sendable, Equatable {
    case deliveryDescription(String)
    case asset(String)
    case source(PlaybackSource)

    /// The path prefix of a delivery description URL.
    public static let deliveryPathPrefix = "/v2/media/"

    /// From `player play`'s SOURCE argument and `--asset` value; exactly one of them is given.
    public init(argument: String?, assetID: String?) throws(PlaybackError) {
        switch (argument, assetID) {
        case (nil, let asset?):
            guard CanonicalUUID.isCanonical(asset) || MediaID(asset) != nil else {
                throw PlaybackError(.invalidArgument,
                                    "--asset is neither a canonical lower-case UUID (the asset's policy uuid) nor a media id (8 letters and digits)")
            }
            self = .asset(asset)
        case (let argument?, nil):
            if Self.isDeliveryURL(argument) {
                self = .deliveryDescription(argument)
            } else {
                self = .source(try PlaybackSource(argument: argument))
            }
        case (.some, .some):
            throw PlaybackError(.invalidArgument, "give either SOURCE or --asset, not both")
        case (nil, nil):
            throw PlaybackError(.invalidArgument, "give SOURCE (a package, tdf-hls stream or delivery URL) or --asset ID")
        }
    }

    /// An http(s) URL whose path (after the authority, before any query) starts with `/v2/media/`.
    static func isDeliveryURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = text.dropFirst("https://".count)
        } else if lower.hasPrefix("http://") {
            rest = text.dropFirst("http://".count)
        } else {
            return false
        }
        let path = DeliveryURL.withoutQuery(String(rest))
        guard let slash = path.firstIndex(of: "/") else { return false }
        return path[slash...].hasPrefix(deliveryPathPrefix)
    }
}
