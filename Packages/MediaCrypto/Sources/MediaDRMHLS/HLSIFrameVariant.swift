/// `EXT-X-I-FRAME-STREAM-INF`: an I-frame playlist named by its URI attribute. Written as
/// BANDWIDTH, AVERAGE-BANDWIDTH, CODECS, RESOLUTION, HDCP-LEVEL, VIDEO, URI, then
/// `otherAttributes`.
public struct HLSIFrameVariant: Sendable, Equatable, Hashable {
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var codecs: [String]?
    public var resolution: HLSResolution?
    public var hdcpLevel: String?
    public var video: String?
    public var uri: String
    public var otherAttributes: [HLSAttribute]

    public init(uri: String, bandwidth: Int, averageBandwidth: Int? = nil, codecs: [String]? = nil,
                resolution: HLSResolution? = nil, hdcpLevel: String? = nil, video: String? = nil,
                otherAttributes: [HLSAttribute] = []) {
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.hdcpLevel = hdcpLevel
        self.video = video
        self.otherAttributes = otherAttributes
    }

    static let knownNames: Set<String> = ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "HDCP-LEVEL", "VIDEO", "URI"]

    init(attributes list: HLSAttributeList) throws(HLSError) {
        guard let bandwidth = try list.decimalInteger("BANDWIDTH") else {
            throw HLSError(.missingAttribute, "EXT-X-I-FRAME-STREAM-INF without BANDWIDTH", line: list.line)
        }
        guard let uri = try list.quotedString("URI") else {
            throw HLSError(.missingAttribute, "EXT-X-I-FRAME-STREAM-INF without URI", line: list.line)
        }
        self.bandwidth = bandwidth
        self.uri = uri
        averageBandwidth = try list.decimalInteger("AVERAGE-BANDWIDTH")
        codecs = try list.quotedString("CODECS").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        resolution = try list.resolution("RESOLUTION")
        hdcpLevel = try list.enumeratedString("HDCP-LEVEL")
        video = try list.quotedString("VIDEO")
        otherAttributes = list.others(excluding: Self.knownNames)
    }

    var attributeList: [HLSAttribute] {
        var out: [HLSAttribute] = [.unquoted("BANDWIDTH", String(bandwidth))]
        if let averageBandwidth { out.append(.unquoted("AVERAGE-BANDWIDTH", String(averageBandwidth))) }
        if let codecs { out.append(.quoted("CODECS", codecs.joined(separator: ","))) }
        if let resolution { out.append(.unquoted("RESOLUTION", resolution.description)) }
        if let hdcpLevel { out.append(.unquoted("HDCP-LEVEL", hdcpLevel)) }
        if let video { out.append(.quoted("VIDEO", video)) }
        out.append(.quoted("URI", uri))
        return out + otherAttributes
    }
}
