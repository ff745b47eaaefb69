/// A four-character code (box type, brand, handler type, scheme type), stored big-endian.
public struct FourCC: Hashable, Sendable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Exactly four bytes of ISO 8859-1 text; anything else is nil.
    public init?(string text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 4, scalars.allSatisfy({ $0.value <= 0xFF }) else { return nil }
        rawValue = scalars.reduce(0) { ($0 << 8) | $1.value }
    }

    /// Literals are code, not input: a wrong literal is a programming error.
    public init(stringLiteral value: String) {
        guard let code = FourCC(string: value) else { preconditionFailure("FourCC literal must be 4 Latin-1 characters") }
        self = code
    }

    public var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8((rawValue >> 16) & 0xFF), UInt8((rawValue >> 8) & 0xFF), UInt8(rawValue & 0xFF)]
    }

    /// The four characters when printable, else hex, so hostile input never yields control characters.
    public var description: String {
        let b = bytes
        if b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: b, as: UTF8.self)
        }
        return "0x" + String(rawValue, radix: 16)
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }
}
