/// Base64 (RFC 4648 §4, padded) for PEM bodies. Strict: padding required and the unused bits
/// of the last group must be zero, so each body has exactly one accepted spelling.
enum PEMBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func isAlphabetOrPad(_ byte: UInt8) -> Bool {
        value(of: byte) != nil || byte == UInt8(ascii: "=")
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index]
            let b1: UInt8 = index + 1 < bytes.count ? bytes[index + 1] : 0
            let b2: UInt8 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: [UInt8]) -> [UInt8]? {
        guard !text.isEmpty, text.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var index = 0
        while index < text.count {
            let isLast = index + 4 == text.count
            let c0 = text[index], c1 = text[index + 1], c2 = text[index + 2], c3 = text[index + 3]
            guard let v0 = value(of: c0), let v1 = value(of: c1) else { return nil }
            out.append(v0 << 2 | v1 >> 4)
            if c2 == UInt8(ascii: "=") {
                guard isLast, c3 == UInt8(ascii: "="), v1 & 0x0F == 0 else { return nil }
                break
            }
            guard let v2 = value(of: c2) else { return nil }
            out.append((v1 & 0x0F) << 4 | v2 >> 2)
            if c3 == UInt8(ascii: "=") {
                guard isLast, v2 & 0x03 == 0 else { return nil }
                break
            }
            guard let v3 = value(of: c3) else { return nil }
            out.append((v2 & 0x03) << 6 | v3)
            index += 4
        }
        return out
    }
}
