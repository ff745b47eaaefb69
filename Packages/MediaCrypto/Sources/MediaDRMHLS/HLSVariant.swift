/// `EXT-X-STREAM-INF` and the URI line after it. Written as BANDWIDTH, AVERAGE-BANDWIDTH,
/// CODECS, RESOLUTION, FRAME-RATE, HDCP-LEVEL, AUDIO, VIDEO, SUBTITLES, CLOSED-CAPTIONS, then
/// `otherAttributes` (fps-v2 Appendix A.3's order). FRAME-RATE has at least three decimals.
public struct HLSVariant: Sendable, Equatable, Hashable {
    public enum ClosedCaptions: Sendable, Equatable, Hashable {
        case none
        case group(String)
    }

    public var bandwidth: Int
    public var averageBandwidth: Int?
    /// The CODECS list split at commas; nil when the attribute is absent.
    public var codecs: [String]?
    public var resolution: HLSResolution?
    public var frameRate: Double?
    public var hdcpLevel: String?
    public var audio: String?
    public var video: String?
    public var subtitles: String?
    public var closedCaptions: ClosedCaptions?
    public var otherAttributes: [HLSAttribute]
    public var uri: String

    public init(uri: String, bandwidth: Int, averageBandwidth: Int? = nil, codecs: [String]? = nil,
                resolution: HLSResolution? = nil, frameRate: Double? = nil, hdcpLevel: String? = nil,
                audio: String? = nil, video: String? = nil, subtitles: String? = nil,
                closedCaptions: ClosedCaptions? = nil, otherAttributes: [HLSAttribute] = []) {
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.frameRate = frameRate
        self.hdcpLevel = hdcpLevel
        self.audio = audio
        self.video = video
        self.subtitles = subtitles
        self.closedCaptions = closedCaptions
        self.otherAttributes = otherAttributes
    }

    static let knownNames: Set<String> = ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE", "HDCP-LEVEL",
                                          "AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"]

    init(attributes list: HLSAttributeList, uri: String) throws(HLSError) {
        guard let bandwidth = try list.decimalInteger("BANDWIDTH") else {
            throw HLSError(.missingAttribute, "EXT-X-STREAM-INF without BANDWIDTH", line: list.line)
        }
        self.uri = uri
        self.bandwidth = bandwidth
        averageBandwidth = try list.decimalInteger("AVERAGE-BANDWIDTH")
        codecs = try list.quotedString("CODECS").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        resolution = try list.resolution("RESOLUTION")
        frameRate = try list.decimalFloat("FRAME-RATE")
        hdcpLevel = try list.enumeratedString("HDCP-LEVEL")
        audio = try list.quotedString("AUDIO")
        video = try list.quotedString("VIDEO")
        subtitles = try list.quotedString("SUBTITLES")
        switch list["CLOSED-CAPTIONS"] {
        case nil: closedCaptions = nil
        case .quotedString(let s): closedCaptions = .group(s)
        case .unquoted("NONE"): closedCaptions = ClosedCaptions.none
        case .unquoted: throw HLSError(.invalidValue, "CLOSED-CAPTIONS must be a quoted-string or NONE", line: list.line)
        }
        otherAttributes = list.others(excluding: Self.knownNames)
    }

    var attributeList: [HLSAttribute] {
        var out: [HLSAttribute] = [.unquoted("BANDWIDTH", String(bandwidth))]
        if let averageBandwidth { out.append(.unquoted("AVERAGE-BANDWIDTH", String(averageBandwidth))) }
        if let codecs { out.append(.quoted("CODECS", codecs.joined(separator: ","))) }
        if let resolution { out.append(.unquoted("RESOLUTION", resolution.description)) }
        if let frameRate { out.append(.unquoted("FRAME-RATE", HLSSyntax.formatDecimal(frameRate, minimumFractionDigits: 3))) }
        if let hdcpLevel { out.append(.unquoted("HDCP-LEVEL", hdcpLevel)) }
        if let audio { out.append(.quoted("AUDIO", audio)) }
        if let video { out.append(.quoted("VIDEO", video)) }
        if let subtitles { out.append(.quoted("SUBTITLES", subtitles)) }
        switch closedCaptions {
        case nil: break
        case .none?: out.append(.unquoted("CLOSED-CAPTIONS", "NONE"))
        case .group(let g)?: out.append(.quoted("CLOSED-CAPTIONS", g))
        }
        return out + otherAttributes
    }
}
