import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// Signs media URLs the way nginx's `secure_link` module checks them (nginx documentation,
/// ngx_http_secure_link_module, `secure_link_md5`): `md5` is the base64url MD5, without padding,
/// of `<expires><signed prefix> <secret>`, `expires` the Unix time after which nginx answers
/// 403, and `slot` names which of the two origin secrets signed it (`OriginSecret`). The signed
/// prefix is the title's (`TitlePath`), so one query signs every playlist and segment below a
/// tdf-hls directory, and every Range read of an fps-v2 file.
package struct OriginURLSigner: Sendable {
    /// `scheme://host[:port]` of the origin, without a trailing slash.
    public let originURL: String
    let secret: OriginSecret

    public init(originURL: String, secret: OriginSecret) {
        var base = originURL
        while base.hasSuffix("/") { base.removeLast() }
        self.originURL = base
        self.secret = secret
    }

    /// The URL a player opens first (the file, or the directory's `master.m3u8`), valid until `expires`.
    public func signedURL(for path: TitlePath, expires: Date) -> String {
        let seconds = Int64(expires.timeIntervalSince1970.rounded(.down))
        return originURL + path.entryPath + "?" + Self.query(prefix: path.prefix, expires: seconds,
                                                              secret: secret.signingSecret, slot: secret.signingSlot)
    }

    /// A file of a directory title (`<prefix><relative>`), signed for the title's prefix until
    /// `expires` (Unix seconds): what a per-playback manifest names (`PlaybackManifests`).
    func signedURL(file relative: String, in path: TitlePath, expires: Int64) -> String {
        originURL + path.prefix + relative + "?" + Self.query(prefix: path.prefix, expires: expires,
                                                              secret: secret.signingSecret, slot: secret.signingSlot)
    }

    /// `md5=...&expires=...&slot=...` for a prefix.
    static func query(prefix: String, expires: Int64, secret: String, slot: Int) -> String {
        "md5=\(md5(prefix: prefix, expires: expires, secret: secret))&expires=\(expires)&slot=\(slot)"
    }

    static func md5(prefix: String, expires: Int64, secret: String) -> String {
        Base64URL.encode(MD5.hash(data: Data("\(expires)\(prefix) \(secret)".utf8)))
    }
}
