/// The nginx `server { }` block of `kas origin-config` (docs/delivery.md#nginx): static files
/// from the origin root, every request checked by `secure_link` against the title's signed
/// prefix (`TitlePath`) with the secret of the URL's slot (either of two: the rotation window,
/// `OriginSecret`), Range requests, CORS for the web player, and caching headers. The secret
/// stays in its 0600 file, which the block `include`s; it is never printed. Requests are logged
/// without their query string: a signed URL's `md5` and `expires` let whoever holds them read the
/// title until it expires, so they stay out of the access log like any other credential.
///
/// With `liveSegmentDuration` (`kas origin-config --live`, docs/live.md "The live origin") a live tdf-hls
/// directory is served: its playlists change every segment, so they are cached at most half a
/// segment duration, while its segments and inits never change once written and are cached long;
/// `live-state.json` (the packager's restart state) is not served.
package struct OriginConfig: Sendable {
    public var root: String
    public var secretFile: String
    /// `host:port` nginx listens on.
    public var listen: String
    /// Origins allowed to read media from a web page (the web player's); empty allows none.
    public var corsOrigins: [String]
    /// The block's access log (absolute), written in `logFormatName`'s format.
    public var accessLog: String
    /// Set for a live origin: the packager's `--segment-duration` in whole seconds.
    public var liveSegmentDuration: Int?

    /// Debian's nginx log directory; a file of our own in it.
    public static let defaultAccessLog = "/var/log/nginx/mediadrm-origin.access.log"

    public init(root: String, secretFile: String, listen: String, corsOrigins: [String] = [],
                accessLog: String = OriginConfig.defaultAccessLog, liveSegmentDuration: Int? = nil) {
        self.root = root
        self.secretFile = secretFile
        self.listen = listen
        self.corsOrigins = corsOrigins
        self.accessLog = accessLog
        self.liveSegmentDuration = liveSegmentDuration
    }

    /// A live segment or init is written once and never changed (docs/live.md), so a viewer's
    /// own cache keeps it for a day; shared caches never do (`private`), as for VOD.
    static let liveSegmentCacheControl = "private, max-age=86400, immutable"

    /// A live playlist is cached at most half a segment duration (whole seconds, rounded down),
    /// so a player reloading it every target duration (RFC 8216 §6.3.4) never misses a segment.
    static func livePlaylistCacheControl(segmentDuration: Int) -> String {
        "private, max-age=\(segmentDuration / 2)"
    }

    /// nginx's `combined` format with `$uri` (the path, no query) in place of `$request`. Named
    /// after the listen address, so two blocks in one nginx never define one name twice.
    var logFormatName: String { "mediadrm_origin_" + listenName }

    /// The `map` of a live block's Cache-Control, named after the listen address as the log format is.
    var cacheMapName: String { "mediadrm_cache_" + listenName }

    /// The listen address with every character but letters and digits as `_`.
    private var listenName: String {
        String(listen.unicodeScalars.map {
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
        \(liveCacheMap)server {
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
        \(liveStateRefusal)\(fileServing)
            }
        }

        """
    }

    /// Range is nginx's own for static files; media must not sit in shared caches past its URL.
    private var fileServing: String {
        """
                add_header Cache-Control \(cacheControl) always;
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

    /// VOD: one header for everything; live: the `map`'s variable.
    private var cacheControl: String {
        liveSegmentDuration == nil ? #""private, max-age=300""# : "$" + cacheMapName
    }

    /// Live only: Cache-Control by file kind, chosen on the path (no query) at the http level,
    /// where nginx allows `map`.
    private var liveCacheMap: String {
        guard let duration = liveSegmentDuration else { return "" }
        return """
        # Live: playlists change every segment, segments never change once written.
        map $uri $\(cacheMapName) {
            default "\(Self.liveSegmentCacheControl)";
            "~\\.m3u8$" "\(Self.livePlaylistCacheControl(segmentDuration: duration))";
        }

        """
    }

    /// Live only: the packager's restart state is not media; a signed URL does not reach it.
    private var liveStateRefusal: String {
        guard liveSegmentDuration != nil else { return "" }
        return """
                if ($uri ~ "/live-state\\.json$") { return 404; }

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
