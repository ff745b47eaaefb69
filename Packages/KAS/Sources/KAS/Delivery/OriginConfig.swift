/// The nginx `server { }` block of `kas origin-config` (docs/delivery.md#nginx): static files
/// from the origin root, every request checked by `secure_link` against the title's signed
/// prefix (`TitlePath`) with the secret of the URL's slot (either of two: the rotation window,
/// `OriginSecret`), Range requests, CORS for the web player, and caching headers. The secret
/// stays in its 0600 file, which the block `include`s; it is never printed.
public struct OriginConfig: Sendable {
    public var root: String
    public var secretFile: String
    /// `host:port` nginx listens on.
    public var listen: String
    /// Origins allowed to read media from a web page (the web player's); empty allows none.
    public var corsOrigins: [String]

    public init(root: String, secretFile: String, listen: String, corsOrigins: [String] = []) {
        self.root = root
        self.secretFile = secretFile
        self.listen = listen
        self.corsOrigins = corsOrigins
    }

    /// The block. `kas origin-config` refuses paths that `isQuotable` refuses, so the quoting
    /// cannot be escaped.
    public var serverBlock: String {
        """
        # Signed media URLs for the KAS delivery routes (docs/delivery.md), written by kas origin-config.
        server {
            listen \(listen);
            root "\(root)";
            # Sets $origin_secret_1 and $origin_secret_2 (a 0600 file; never printed).
            include "\(secretFile)";
            # The URL's unsigned slot parameter picks the secret: either is valid (rotation).
            set $origin_secret $origin_secret_1;
            if ($arg_slot = "2") {
                set $origin_secret $origin_secret_2;
            }

            # A title is one entry directly under the root: /NAME (fps-v2 file) or /NAME/ (tdf-hls
            # directory). One signature covers the title's prefix, so its playlists and segments
            # are reached with the same md5 and expires.
            set $title_prefix $uri;
            if ($uri ~ "^(/[^/]+/)") {
                set $title_prefix $1;
            }
            set $cors_origin "";
        \(corsBlock)
            location / {
                secure_link $arg_md5,$arg_expires;
                secure_link_md5 "$secure_link_expires$title_prefix $origin_secret";
                # Unsigned, tampered, signed for another prefix or expired.
                if ($secure_link = "") { return 403; }
                if ($secure_link = "0") { return 403; }
        \(fileServing)
            }
        }

        """
    }

    /// Range is nginx's own for static files; media must not sit in shared caches past its URL.
    private var fileServing: String {
        """
                add_header Cache-Control "private, max-age=300" always;
                add_header Access-Control-Allow-Origin $cors_origin always;
                add_header Access-Control-Expose-Headers "Content-Length, Content-Range, Accept-Ranges" always;
                add_header Vary Origin always;
                types {
                    application/vnd.apple.mpegurl m3u8;
                    video/mp4 mp4;
                    application/octet-stream tdf;
                }
                default_type application/octet-stream;
                try_files $uri =404;
        """
    }

    /// Names the requesting origin in `Access-Control-Allow-Origin` only when it is listed.
    private var corsBlock: String {
        guard !corsOrigins.isEmpty else { return "" }
        let pattern = corsOrigins.map(Self.regexEscaped).joined(separator: "|")
        return """
                # CORS for the web player's origins only (never *).
                if ($http_origin ~ "^(\(pattern))$") {
                    set $cors_origin $http_origin;
                }

        """
    }

    private static func regexEscaped(_ origin: String) -> String {
        var out = ""
        for character in origin {
            if ".+*?()[]{}|^$\\/".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// Whether `text` can be written inside nginx double quotes as is.
    public static func isQuotable(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0 == "$" || $0 == "{" || $0 == "}" || $0.value < 0x20 || $0.value == 0x7F }
    }
}
