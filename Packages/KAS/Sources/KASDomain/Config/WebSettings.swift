extension KASConfiguration {
    /// The web player and cross-origin access (docs/web.md). The file's `web` and `cors`
    /// sections:
    ///
    /// ```json
    /// "web": {"enabled": true, "root": "/usr/share/mediadrm/player"},
    /// "cors": {"allowedOrigins": ["https://www.example.com"]}
    /// ```
    public struct WebSettings: Sendable, Equatable {
        /// Serve the player module and its files at `/player/` (default on).
        public var enabled: Bool = true
        /// Where the player files are; nil looks beside the `kas` binary and in the source tree
        /// it was built from (`WebPlayerFiles.locate`).
        public var root: String?
        /// Origins (`scheme://host[:port]`, exactly) whose pages may call the KAS and import the
        /// player: CORS answers name the requesting origin only when it is listed. Never `*`.
        public var allowedOrigins: [String] = []

        public init() {}
    }
}

extension ConfigValue {
    /// A list of web origins: `http(s)://host[:port]` with nothing after the authority, compared
    /// as written (browsers send the origin serialised, lower-case, default port dropped).
    static func origins(_ texts: [String], _ source: String) throws(KASConfigurationError) -> [String] {
        let expected = "an array of origins such as \"https://www.example.com\" (scheme, host and port only; no \"*\")"
        var result: [String] = []
        for text in texts {
            guard let origin = WebOrigin(text) else { throw invalid(source, expected) }
            result.append(origin.serialized)
        }
        return result
    }
}
