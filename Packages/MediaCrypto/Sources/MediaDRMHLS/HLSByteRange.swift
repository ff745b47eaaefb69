/// `<n>[@<o>]`: the tag value of `EXT-X-BYTERANGE` and the quoted `BYTERANGE` of `EXT-X-MAP`.
public struct HLSByteRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var length: Int
    public var offset: Int?

    public init(length: Int, offset: Int? = nil) {
        self.length = length
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(length)@\(offset)" }
        return "\(length)"
    }

    init?(text: some StringProtocol) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let n = HLSSyntax.decimalInteger(parts[0]) else { return nil }
        length = n
        if parts.count == 2 {
            guard let o = HLSSyntax.decimalInteger(parts[1]) else { return nil }
            offset = o
        } else {
            offset = nil
        }
    }
}
