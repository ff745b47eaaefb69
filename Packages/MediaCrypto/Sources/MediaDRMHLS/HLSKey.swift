import Foundation

/// `EXT-X-KEY` (media playlists) and `EXT-X-SESSION-KEY` (master playlists).
/// Written as METHOD, URI, KEYFORMAT, KEYFORMATVERSIONS, IV, then `otherAttributes` in order,
/// which is the order fps-v2 Appendix A.3 shows.
public struct HLSKey: Sendable, Equatable, Hashable {
    public enum Method: String, Sendable, Equatable, Hashable, CaseIterable {
        case none = "NONE"
        case aes128 = "AES-128"
        case sampleAES = "SAMPLE-AES"
        case sampleAESCTR = "SAMPLE-AES-CTR"
    }

    public var method: Method
    public var uri: String?
    /// 16 bytes, written `0x` + 32 upper-case hex digits; either case is read.
    public var iv: Data?
    public var keyFormat: String?
    public var keyFormatVersions: String?
    /// Attributes this model does not name, kept as written (lenient mode).
    public var otherAttributes: [HLSAttribute]

    public init(method: Method, uri: String? = nil, iv: Data? = nil, keyFormat: String? = nil,
                keyFormatVersions: String? = nil, otherAttributes: [HLSAttribute] = []) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
        self.otherAttributes = otherAttributes
    }

    static let knownNames: Set<String> = ["METHOD", "URI", "IV", "KEYFORMAT", "KEYFORMATVERSIONS"]

    init(attributes list: HLSAttributeList) throws(HLSError) {
        guard let m = try list.enumeratedString("METHOD") else {
            throw HLSError(.missingAttribute, "key tag without METHOD", line: list.line)
        }
        guard let method = Method(rawValue: m) else {
            throw HLSError(.invalidValue, "METHOD must be NONE, AES-128, SAMPLE-AES or SAMPLE-AES-CTR", line: list.line)
        }
        self.method = method
        if method == .none {
            // RFC 8216 §4.3.2.4: with NONE, the other attributes MUST NOT be present.
            guard list.attributes.count == 1 else {
                throw HLSError(.unexpectedAttribute, "METHOD=NONE allows no other attribute", line: list.line)
            }
        }
        uri = try list.quotedString("URI")
        if method != .none, uri == nil {
            throw HLSError(.missingAttribute, "key tag without URI", line: list.line)
        }
        iv = try list.hexadecimalSequence("IV")
        if let iv, iv.count != 16 {
            throw HLSError(.invalidHex, "IV must be 0x followed by 32 hexadecimal digits", line: list.line)
        }
        keyFormat = try list.quotedString("KEYFORMAT")
        keyFormatVersions = try list.quotedString("KEYFORMATVERSIONS")
        otherAttributes = list.others(excluding: Self.knownNames)
    }

    var attributeList: [HLSAttribute] {
        var out: [HLSAttribute] = [.unquoted("METHOD", method.rawValue)]
        if let uri { out.append(.quoted("URI", uri)) }
        if let keyFormat { out.append(.quoted("KEYFORMAT", keyFormat)) }
        if let keyFormatVersions { out.append(.quoted("KEYFORMATVERSIONS", keyFormatVersions)) }
        if let iv { out.append(.unquoted("IV", "0x" + HLSWriter.upperHex(iv))) }
        return out + otherAttributes
    }
}
