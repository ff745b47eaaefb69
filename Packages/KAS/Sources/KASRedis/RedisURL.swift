import Foundation

/// Where the Redis store is: `redis://[user:password@]host[:port][/db]`, with the port 6379 and
/// database 0 by default. `host` is a name (resolved with getaddrinfo), an IPv4 literal or a
/// bracketed IPv6 literal (`redis://[::1]:6379`). The user and password may be percent-encoded
/// (`%40` for `@`). `redis://:password@host` authenticates as the default user (`AUTH password`),
/// `redis://user:password@host` as an ACL user (`AUTH user password`).
///
/// Only plain TCP: `rediss://` is refused, since the KAS speaks RESP over its own sockets
/// without TLS (docs/kas.md: a private network or a TLS tunnel between hosts).
///
/// `description` and `redacted` print `redis://user:***@host:port/db`: the password is never
/// printed, and parse errors name the part at fault without repeating the credentials.
package struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String?
    public var password: String?
    public var database: Int

    public static let defaultPort = 6379
    /// Redis's own bound on `databases` is a configuration value (16 by default); this only
    /// keeps the number sane, the server refuses a `SELECT` past its own bound.
    static let databaseRange = 0...1_000_000

    public init(host: String, port: Int = RedisURL.defaultPort, user: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `text`; a bad URL is `.configuration` naming the part at fault.
    public init(_ text: String) throws(RedisError) {
        func bad(_ reason: String) -> RedisError {
            RedisError(.configuration, "the store URL \(reason); expected redis://[user:password@]host[:port][/db]")
        }
        let lowered = text.lowercased()
        if lowered.hasPrefix("rediss://") {
            throw bad("uses rediss:// (TLS), which the KAS does not speak: reach Redis over a private network or a TLS tunnel and use redis://")
        }
        guard lowered.hasPrefix("redis://") else { throw bad("does not start with redis://") }
        let rest = text.dropFirst("redis://".count)
        guard !rest.contains("?"), !rest.contains("#") else { throw bad("has a query or fragment, which are not supported") }
        let authority: Substring
        let path: Substring
        // The userinfo may hold a '/', so the path starts at the first '/' after the last '@'.
        let afterUserInfo = rest.lastIndex(of: "@").map { rest.index(after: $0) } ?? rest.startIndex
        if let slash = rest[afterUserInfo...].firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else {
            authority = rest
            path = ""
        }
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                guard let decodedUser = Self.percentDecoded(userInfo[..<colon]) else {
                    throw bad("has a user name that is not valid percent-encoding")
                }
                guard let decodedPassword = Self.percentDecoded(userInfo[userInfo.index(after: colon)...]) else {
                    throw bad("has a password that is not valid percent-encoding")
                }
                user = decodedUser.isEmpty ? nil : decodedUser
                password = decodedPassword.isEmpty ? nil : decodedPassword
            } else {
                guard let decodedUser = Self.percentDecoded(userInfo) else {
                    throw bad("has a user name that is not valid percent-encoding")
                }
                user = decodedUser.isEmpty ? nil : decodedUser
                password = nil
            }
        } else {
            user = nil
            password = nil
        }
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw bad("has an IPv6 host without its closing ']'") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("has text after the IPv6 host that is not a port") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        guard !host.isEmpty else { throw bad("has no host") }
        guard host.utf8.allSatisfy({ Self.isHostByte($0) }) else {
            throw bad("has a host with characters not allowed in a host name or IP address")
        }
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw bad("has port '\(portText.prefix(16))', not a number from 1 to 65535")
            }
            port = value
        } else {
            port = Self.defaultPort
        }
        if path.isEmpty {
            database = 0
        } else {
            guard let value = Int(path), Self.databaseRange.contains(value) else {
                throw bad("has database '\(path.prefix(16))', not a number from 0 to \(Self.databaseRange.upperBound)")
            }
            database = value
        }
    }

    /// `redis://user:***@host:port/db`: the URL with the password masked.
    public var redacted: String {
        var text = "redis://"
        if let user { text += Self.percentEncoded(user) }
        if password != nil { text += ":***" }
        if user != nil || password != nil { text += "@" }
        text += host.contains(":") ? "[\(host)]" : host
        return text + ":\(port)/\(database)"
    }

    public var description: String { redacted }

    /// The URL with the password, for the configuration's own use (never printed).
    var unredacted: String {
        var text = "redis://"
        if let user { text += Self.percentEncoded(user) }
        if let password { text += ":" + Self.percentEncoded(password) }
        if user != nil || password != nil { text += "@" }
        text += host.contains(":") ? "[\(host)]" : host
        return text + ":\(port)/\(database)"
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"),
             UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        String(text).removingPercentEncoding
    }

    /// RFC 3986's unreserved characters: everything else in a user or password is escaped.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
