/// Bounds applied while parsing, so a hostile document costs a bounded amount of time, memory and
/// stack. Every limit is checked before the memory it guards is used.
public struct JSONLimits: Sendable, Equatable {
    /// Largest accepted document, in bytes.
    public var maxBytes: Int = 8 << 20
    /// Deepest accepted nesting of arrays and objects (a scalar document has depth 0, `[]` 1).
    /// The parser itself never recurses, but a parsed value is compared and released
    /// recursively, so keep this in the hundreds, not the hundreds of thousands.
    public var maxDepth: Int = 64
    /// Longest accepted string (keys included) after unescaping, in UTF-8 bytes; also bounds the
    /// text of a number.
    public var maxStringBytes: Int = 4 << 20
    /// Most members in one object or elements in one array.
    public var maxMembers: Int = 1 << 16

    public init(maxBytes: Int = 8 << 20, maxDepth: Int = 64, maxStringBytes: Int = 4 << 20, maxMembers: Int = 1 << 16) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxMembers = maxMembers
    }

    public static let `default` = JSONLimits()
}
