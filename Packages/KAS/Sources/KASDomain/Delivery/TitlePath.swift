/// Where a title lives on the origin, and the path prefix one signed media URL covers
/// (docs/delivery.md#signed-media-urls): every title is one entry directly under the origin
/// root, `/<name>` for an fps-v2 file and `/<name>/` for a tdf-hls directory, so the signed
/// prefix is the request path up to its second `/` (or the whole path when it has none). The
/// nginx block of `kas origin-config` derives the same prefix with the same rule.
package struct TitlePath: Sendable, Equatable, CustomStringConvertible {
    /// `/talk.tdf` or `/talk/`.
    public let prefix: String

    /// Letters, digits, `.`, `_` and `-`, not starting with `.`, at most 128 bytes: a name
    /// that needs no percent-encoding, so nginx's decoded `$uri` and the signed text agree.
    static let maximumNameLength = 128

    /// `/name` (a file) or `/name/` (a directory); anything else is refused.
    public init(_ text: String) throws(TitlePathError) {
        var name = Substring(text)
        guard name.hasPrefix("/") else { throw TitlePathError() }
        name = name.dropFirst()
        let isDirectory = name.hasSuffix("/")
        if isDirectory { name = name.dropLast() }
        guard Self.isValidName(name) else { throw TitlePathError() }
        prefix = "/" + name + (isDirectory ? "/" : "")
    }

    static func isValidName(_ name: Substring) -> Bool {
        guard (1...maximumNameLength).contains(name.utf8.count), name.first != "." else { return false }
        return name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    public var isDirectory: Bool { prefix.hasSuffix("/") }

    /// What a player opens first: the file, or the directory's `master.m3u8`.
    public var entryPath: String { isDirectory ? prefix + "master.m3u8" : prefix }

    public var description: String { prefix }
}

package struct TitlePathError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String {
        "a title's path is '/NAME' for an fps-v2 file or '/NAME/' for a tdf-hls directory, directly under the "
            + "origin root; NAME is 1 to 128 letters, digits, '.', '_' or '-' and does not start with '.'"
    }
}
