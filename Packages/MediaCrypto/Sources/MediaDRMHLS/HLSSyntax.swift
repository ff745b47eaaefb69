// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// The value grammars of RFC 8216 §4.2, shared by attribute lists and by tags whose value is a
/// bare number. Every function checks the exact character set first and converts afterwards, so
/// Foundation's permissive conversions (exponents, `inf`, hex floats, whitespace) never see input.
package enum HLSSyntax {
    package static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    package static func isHexDigit(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    /// decimal-integer: 1 to 20 digits. Values above `Int.max` are refused rather than wrapped;
    /// nothing in a playlist this project handles comes near that.
    package static func decimalInteger(_ text: some StringProtocol) -> Int? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var value = 0
        for b in bytes {
            guard isDigit(b) else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int(b - 0x30))
            guard !o1, !o2 else { return nil }
            value = s
        }
        return value
    }

    /// A positive decimal-integer without a leading zero (fps-v2 §7.2 BANDWIDTH).
    package static func positiveIntegerNoLeadingZero(_ text: some StringProtocol) -> Int? {
        guard let first = text.utf8.first, first != 0x30, let v = decimalInteger(text), v > 0 else { return nil }
        return v
    }

    /// Digits, then optionally a point and at least one digit; no sign, no exponent.
    /// Returns the number of fraction digits with the value.
    package static func decimalFloat(_ text: some StringProtocol) -> (value: Double, fractionDigits: Int)? {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        guard i > 0 else { return nil }
        var fraction = 0
        if i < bytes.count {
            guard bytes[i] == 0x2E else { return nil }
            i += 1
            let start = i
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            fraction = i - start
            guard fraction > 0, i == bytes.count else { return nil }
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return (value, fraction)
    }

    /// hexadecimal-sequence `0x`/`0X` followed by an even number of hex digits, as bytes.
    package static func hexadecimalSequence(_ text: some StringProtocol) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 4, bytes[0] == 0x30, bytes[1] == 0x78 || bytes[1] == 0x58, bytes.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var i = 2
        while i + 1 < bytes.count {
            guard let hi = hexValue(bytes[i]), let lo = hexValue(bytes[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// decimal-resolution `<w>x<h>`.
    static func resolution(_ text: some StringProtocol) -> HLSResolution? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = decimalInteger(parts[0]), let h = decimalInteger(parts[1]) else { return nil }
        return HLSResolution(width: w, height: h)
    }

    /// enumerated-string and every other unquoted value: no quote, comma or whitespace.
    static func isUnquotedValue(_ text: some StringProtocol) -> Bool {
        guard !text.isEmpty else { return false }
        for b in text.utf8 where b == 0x22 || b == 0x2C || b == 0x20 || b == 0x09 || b < 0x20 || b == 0x7F {
            return false
        }
        return !containsControl(text, allowTab: false)
    }

    /// quoted-string content: no double quote, CR or LF.
    static func isQuotedContent(_ text: some StringProtocol) -> Bool {
        for b in text.utf8 where b == 0x22 || b == 0x0A || b == 0x0D { return false }
        return !containsControl(text, allowTab: true)
    }

    /// AttributeName: `[A-Z0-9-]+`.
    static func isAttributeName(_ text: some StringProtocol) -> Bool {
        guard !text.isEmpty else { return false }
        for b in text.utf8 where !(isDigit(b) || (b >= 0x41 && b <= 0x5A) || b == 0x2D) { return false }
        return true
    }

    /// RFC 8216 §4.1 forbids C0 and C1 controls other than CR and LF; a TAB is tolerated where
    /// the caller allows it (lenient mode only).
    static func containsControl(_ text: some StringProtocol, allowTab: Bool) -> Bool {
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v == 0x09 && allowTab { continue }
            if v < 0x20 || (v >= 0x7F && v <= 0x9F) { return true }
        }
        return false
    }

    /// The shortest text with at least `minimumFractionDigits` decimals that reads back as
    /// exactly `value`: fps-v2 writes EXTINF with five decimals and FRAME-RATE with three, and a
    /// value that needs more keeps them so that parse(write(model)) == model.
    static func formatDecimal(_ value: Double, minimumFractionDigits: Int) -> String {
        var digits = minimumFractionDigits
        while true {
            let text = String(format: "%.\(digits)f", value)
            if Double(text) == value || digits >= 1_100 { return text }
            digits = digits < 24 ? digits + 1 : 1_100
        }
    }
}
