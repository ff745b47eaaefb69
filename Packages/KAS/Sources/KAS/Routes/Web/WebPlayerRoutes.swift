import Foundation
import KASDomain
import KASHTTP
import KASObservability

/// `GET /player/` (the demonstration page) and `GET /player/<file>` (the player's ES modules).
///
/// Every answer carries a strict Content-Security-Policy (scripts only from this origin, no
/// inline script or eval, media from blob: URLs that MediaSource makes), no referrer,
/// and `Cache-Control: no-cache`: the browser revalidates (ETag) so an upgraded KAS never runs
/// with a stale module. `nosniff` is the server's, on every answer. The page never takes a token
/// in its URL (docs/web.md).
func registerWebPlayerRoutes(on router: Router<KASRequestContext>, files: WebPlayerFiles) {
    let serve: @Sendable (String, ServerRequest) throws -> ServerResponse = { name, request in
        guard let file = files.file(named: name) else { throw HTTPError.notFound }
        let etag = file.etag
        var headers = WebPlayerHeaders.common
        headers["ETag"] = etag
        if request.headers["If-None-Match"] == etag {
            return ServerResponse(status: 304, headers: headers)
        }
        return .bytes(file.body, contentType: file.contentType, headers: headers)
    }
    router.get("/player") { request, _ in try serve("index.html", request) }
    router.get("/player/{file}") { request, context in try serve(context.parameters["file"] ?? "", request) }
}

enum WebPlayerHeaders {
    /// connect-src: the KAS itself and package origins over https (and loopback http for a
    /// local demonstration); media-src blob: for MediaSource.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'",
        "connect-src 'self' https: http://127.0.0.1:* http://localhost:*", "media-src 'self' blob:",
        "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static var common: ServerHeaders {
        var headers = ServerHeaders()
        headers["Content-Security-Policy"] = contentSecurityPolicy
        headers["Referrer-Policy"] = "no-referrer"
        headers["Cache-Control"] = "no-cache"
        return headers
    }
}
