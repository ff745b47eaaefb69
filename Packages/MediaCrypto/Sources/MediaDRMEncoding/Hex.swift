import Foundation

/// Base16 (RFC 4648 §8): lowercase on output, either case on input.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some DataProtocol) -> String {
        ContiguousBytes(bytes).withBuffer { src in
            var out = [UInt8]()
            out.reserveCapacity(src.count * 2)
            for byte in src {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Even length, `[0-9a-fA-F]` only; no `0x` prefix, separators or whitespace.
    public static func decode(_ text: some StringProtocol) throws(EncodingError) -> Data {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else {
            // Characters are judged before the length so stray whitespace is reported as what it is.
            if let bad = utf8.firstIndex(where: { nibble($0) == nil }) {
                throw EncodingError(.invalidCharacter, "hex text has a non-hex character at offset \(bad)")
            }
            throw EncodingError(.invalidLength, "hex text has an odd number of digits (\(utf8.count))")
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]) else {
                throw EncodingError(.invalidCharacter, "hex text has a non-hex character at offset \(index)")
            }
            guard let low = nibble(utf8[index + 1]) else {
                throw EncodingError(.invalidCharacter, "hex text has a non-hex character at offset \(index + 1)")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return Data(out)
    }

    private static func nibble(_ symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return symbol - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return symbol - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return symbol - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
