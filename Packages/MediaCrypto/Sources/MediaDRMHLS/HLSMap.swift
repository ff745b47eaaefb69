/// `EXT-X-MAP`: the media initialization section. Written as URI, BYTERANGE, then
/// `otherAttributes`.
public struct HLSMap: Sendable, Equatable, Hashable {
    public var uri: String
    public var byteRange: HLSByteRange?
    public var otherAttributes: [HLSAttribute]

    public init(uri: String, byteRange: HLSByteRange? = nil, otherAttributes: [HLSAttribute] = []) {
        self.uri = uri
        self.byteRange = byteRange
        self.otherAttributes = otherAttributes
    }

    init(attributes list: HLSAttributeList) throws(HLSError) {
        guard let uri = try list.quotedString("URI") else {
            throw HLSError(.missingAttribute, "EXT-X-MAP without URI", line: list.line)
        }
        self.uri = uri
        if let text = try list.quotedString("BYTERANGE") {
            guard let range = HLSByteRange(text: text) else {
                throw HLSError(.invalidValue, "EXT-X-MAP BYTERANGE must be \"<n>[@<o>]\"", line: list.line)
            }
            byteRange = range
        }
        otherAttributes = list.others(excluding: ["URI", "BYTERANGE"])
    }

    var attributeList: [HLSAttribute] {
        var out: [HLSAttribute] = [.quoted("URI", uri)]
        if let byteRange { out.append(.quoted("BYTERANGE", byteRange.description)) }
        return out + otherAttributes
    }
}
