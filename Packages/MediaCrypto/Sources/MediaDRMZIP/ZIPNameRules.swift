/// Which entry names are acceptable, for writing and for reading. A name is a relative path of
/// `/`-separated components; one trailing `/` marks a directory.
enum ZIPNameRules {
    /// Decodes a stored name and checks it. Names are taken as UTF-8 whatever bit 11 says;
    /// bytes that are not valid UTF-8 are refused rather than guessed as CP437.
    static func decode(_ raw: [UInt8]) throws(ZIPError) -> String {
        guard let name = String(validating: raw, as: UTF8.self) else {
            throw ZIPError(.unsafeName, "an entry name is not valid UTF-8")
        }
        try check(name)
        return name
    }

    static func check(_ name: String) throws(ZIPError) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { throw ZIPError(.unsafeName, "an entry name is empty") }
        for b in bytes {
            if b == 0 { throw ZIPError(.unsafeName, "an entry name contains NUL") }
            if b < 0x20 || b == 0x7F { throw ZIPError(.unsafeName, "an entry name contains a control character") }
            if b == UInt8(ascii: "\\") { throw ZIPError(.unsafeName, "an entry name contains a backslash") }
        }
        if bytes[0] == UInt8(ascii: "/") { throw ZIPError(.unsafeName, "an entry name is an absolute path") }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":") {
            throw ZIPError(.unsafeName, "an entry name starts with a drive letter")
        }
        var components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.count > 1, components.last?.isEmpty == true { components.removeLast() }
        for component in components {
            if component.isEmpty { throw ZIPError(.unsafeName, "an entry name has an empty path component") }
            if component.elementsEqual([UInt8(ascii: ".")]) {
                throw ZIPError(.unsafeName, "an entry name has a '.' component")
            }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                throw ZIPError(.unsafeName, "an entry name has a '..' component")
            }
        }
    }
}
