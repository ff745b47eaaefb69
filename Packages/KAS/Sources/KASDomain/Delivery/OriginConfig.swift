/// The nginx `server { }` block of `kas origin-config` (docs/delivery.md#nginx): static files
/// from the origin root, every request checked by `secure_link` against the title's signed
/// prefix (`TitlePath`) with the secret of the URL's slot (either of two: the rotation window,
/// `OriginSecret`), Range requests, CORS for the web player, and caching headers. The secret
/// stays in its 0600 file, which the block `include`s; it is never printed. Requests are logged
/// without their query string: a signed URL's `md5` and `expires` let whoever holds them read the
/// title until it expires, so they stay out of the access log like any other credential.
package struct OriginConfig: Sendable {
    public var root: String
    public var secretFile: String
    /// `host:port` nginx listens on.
    public var listen: String
    /// Origins allowed to read media from a web page (the web player's); empty allows none.
    public var corsOrigins: [String]
    /// The block's access log (absolute), written in `logFormatName`'s format.
    public var accessLog: String

    /// Debian's nginx log directory; a file of our own in it.
    public static let defaultAccessLog = "/var/log/nginx/mediadrm-origin.access.log"

    public init(root: String, secretFile: String, listen: String, corsOrigins: [String] = [],
                accessLog: String = OriginConfig.defaultAccessLog) {
        self.root = root
        self.secretFile = secretFile
        self.listen = listen
        self.corsOrigins = corsOrigins
        self.accessLog = accessLog
    }

    /// nginx's `combined` format with `$uri` (the path, no query) in place of `$request`. Named
    /// after the listen address, so two blocks in one nginx never define one name twice.
    var logFormatName: String {
        "mediadrm_origin_" + String(listen.unicodeScalars.map {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_"
        })
    }

    /// The block. `kas origin-config` refuses paths that `isQuotable` refuses, so the quoting
    /// cannot be escaped.
    public var serverBlock: String {
        """
        # Signed media URLs for the KAS delivery routes (docs/delivery.md), written by kas origin-config.
        # Logged without the query: a URL's md5 and expires are a credential until it expires.
        log_format \(logFormatName) '$remote_addr - $remote_user [$time_local] "$request_method $uri $server_protocol" '
                                     '$status $body_bytes_sent "$http_referer" "$http_user_agent"';
        server {
            listen \(listen);
            root "\(root)";
            access_log "\(accessLog)" \(logFormatName);
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
