/// The URLs a playback answer or a delivery description hands the client: each must be an
/// absolute http(s) URL the transport accepts (plain http only to loopback), and those the
/// client sends the viewer's bearer token to must be on the key service's own origin, so a
/// description can never lead the token elsewhere (docs/delivery.md "The player's rule").
enum DeliveryURL {
    /// `text` when the transport would accept it; otherwise a `.malformed` error naming `field`.
    static func check(_ text: String, field: String) throws(PlaybackError) -> String {
        do {
            _ = try TransportURL.validate(text)
        } catch {
            throw PlaybackError(.malformed, "the \(field) is not a usable http(s) URL: \(error.reason)")
        }
        return text
    }

    /// The RFC 6454 origin of `text`, nil when it is not a URL the transport accepts.
    static func origin(_ text: String) -> String? {
        try? TransportURL.validate(text).origin
    }

    /// Whether `text` is on the same origin as `keyService` (where the bearer token may go).
    static func isOnKeyService(_ text: String, keyService: String) -> Bool {
        guard let origin = origin(text), let expected = self.origin(keyService) else { return false }
        return origin == expected
    }

    /// `text` when it is on the key service's origin; otherwise a `.malformed` error naming `field`.
    static func checkOnKeyService(_ text: String, field: String, keyService: String) throws(PlaybackError) -> String {
        _ = try check(text, field: field)
        guard isOnKeyService(text, keyService: keyService) else {
            throw PlaybackError(.malformed, "the \(field) is not on the key service (--kas): the bearer token is sent only there")
        }
        return text
    }

    /// The URL without its query and fragment: what a message may name (a signed URL's secrets
    /// live in its query).
    static func withoutQuery(_ text: String) -> Substring {
        var path = Substring(text)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        return path
    }

    /// The query of `text` with its `?`, or "" (the fragment is never part of it).
    static func query(_ text: String) -> Substring {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        guard let mark = rest.firstIndex(of: "?") else { return "" }
        return rest[mark...]
    }
}
