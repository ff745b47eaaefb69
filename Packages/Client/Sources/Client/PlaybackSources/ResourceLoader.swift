import Foundation

/// Reads the files of a tdf-hls stream by the relative names its playlists use.
protocol ResourceLoader: Sendable {
    func load(_ name: String, maxBytes: Int) throws(PlaybackError) -> Data
}

enum ResourceName {
    /// A playlist URI this client follows: relative, one path segment, no query, fragment,
    /// scheme, `..` or backslash, printable ASCII.
    static func validate(_ name: String) throws(PlaybackError) {
        let bytes = Array(name.utf8)
        guard (1...255).contains(bytes.count), name != ".", name != "..",
              bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\")
                  && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "%") })
        else {
            throw PlaybackError(.invalidSource, "a playlist URI is not a plain relative name")
        }
    }
}

/// Files of a local directory.
struct DirectoryResourceLoader: ResourceLoader {
    let directory: String

    func load(_ name: String, maxBytes: Int) throws(PlaybackError) -> Data {
        try ResourceName.validate(name)
        let path = directory + "/" + name
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PlaybackError(.io, "\(name) could not be opened")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw PlaybackError(.io, "\(name) could not be read")
        }
        guard data.count <= maxBytes else { throw PlaybackError(.io, "\(name) is larger than allowed") }
        return data
    }
}

/// Resources beside a URL on an HTTP(S) origin, fetched without a credential (the token is only
/// for the key service). The URL's query goes with every sibling: one signed-URL signature
/// covers a title's directory (docs/delivery.md), so playlists need no rewriting. When the
/// location renews its URL (a signed URL that expired), later siblings use the fresh one.
struct HTTPResourceLoader: ResourceLoader {
    let location: any RenewableURL
    let client: HTTPClient

    init(siblingsOf url: String, client: HTTPClient) {
        self.init(location: FixedURL(url), client: client)
    }

    init(location: any RenewableURL, client: HTTPClient) {
        self.location = location
        self.client = client
    }

    /// The URL of `name` beside `url`: `url`'s directory (up to its last `/`), `name`, `url`'s query.
    static func sibling(_ name: String, of url: String) -> String {
        var directory = DeliveryURL.withoutQuery(url)
        if let slash = directory.lastIndex(of: "/") { directory = directory[...slash] }
        return directory + name + DeliveryURL.query(url)
    }

    func load(_ name: String, maxBytes: Int) throws(PlaybackError) -> Data {
        try ResourceName.validate(name)
        do {
            return try client.sendSynchronously(to: location) { url in
                TransportRequest(url: Self.sibling(name, of: url), maxResponseBytes: maxBytes)
            }.body
        } catch {
            if error.code == .httpStatus { throw PlaybackError(.io, "\(name) could not be fetched (HTTP \(error.status ?? 0))") }
            throw PlaybackError(.io, "\(name) could not be fetched: \(error.reason)")
        }
    }
}
