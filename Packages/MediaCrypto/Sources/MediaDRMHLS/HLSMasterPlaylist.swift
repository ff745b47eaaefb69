/// A master (multivariant) playlist. The writer emits, after `#EXTM3U`: EXT-X-VERSION,
/// EXT-X-INDEPENDENT-SEGMENTS, the session keys, `otherTags`, the renditions, each variant
/// followed by its URI, then the I-frame variants; each group keeps its model order.
public struct HLSMasterPlaylist: Sendable, Equatable {
    public var version: Int?
    public var independentSegments: Bool
    public var sessionKeys: [HLSKey]
    public var renditions: [HLSRendition]
    public var variants: [HLSVariant]
    public var iFrameVariants: [HLSIFrameVariant]
    /// Tags the model does not interpret (EXT-X-SESSION-DATA, EXT-X-START, EXT-X-DEFINE, vendor
    /// tags), kept in order in lenient mode.
    public var otherTags: [HLSTag]

    public init(version: Int? = nil, independentSegments: Bool = false, sessionKeys: [HLSKey] = [],
                renditions: [HLSRendition] = [], variants: [HLSVariant] = [], iFrameVariants: [HLSIFrameVariant] = [],
                otherTags: [HLSTag] = []) {
        self.version = version
        self.independentSegments = independentSegments
        self.sessionKeys = sessionKeys
        self.renditions = renditions
        self.variants = variants
        self.iFrameVariants = iFrameVariants
        self.otherTags = otherTags
    }
}
