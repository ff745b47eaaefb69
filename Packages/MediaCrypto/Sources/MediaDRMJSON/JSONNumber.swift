/// A JSON number kept as its exact source text, so nothing is lost or reformatted between
/// reading and writing (a 20-digit id stays 20 digits; "1.50" stays "1.50").
public struct JSONNumber: Sendable, Equatable, Hashable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
    /// The exact RFC 8259 number text.
    public let text: String

    /// Text already known to match the grammar (from the parser or a formatter).
    init(validatedText: String) {
        self.text = validatedText
    }

    /// A number from text, or nil when the text is not exactly an RFC 8259 number.
    public init?(text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, JSONNumber.grammarLength(bytes, from: 0) == bytes.count else { return nil }
        self.text = text
    }

    public init(_ value: Int) { self.text = String(value) }
    public init(_ value: Int64) { self.text = String(value) }
    public init(_ value: UInt64) { self.text = String(value) }

    /// A finite double in its shortest round-tripping form. JSON has no NaN or infinity, so a
    /// non-finite value is a programming error and traps, as `Int(Double.nan)` does.
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON numbers must be finite")
        if value == value.rounded(), abs(value) < 1e15 {
            // Integral doubles print as integers ("3", not "3.0"), as JavaScript and Foundation do.
            self.text = String(Int64(value))
        } else {
            self.text = value.description
        }
    }

    /// A finite double, or nil for NaN and infinities.
    public init?(exactly value: Double) {
        guard value.isFinite else { return nil }
        self.init(value)
    }

    public init(integerLiteral value: Int) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value) }

    /// The value when the text is an integer (no fraction or exponent) within Int64's range.
    public var int64: Int64? {
        guard isInteger else { return nil }
        return Int64(text)
    }

    /// The value when the text is a non-negative integer within UInt64's range.
    public var uint64: UInt64? {
        guard isInteger else { return nil }
        return UInt64(text)
    }

    /// The nearest double, or nil when the magnitude overflows to infinity.
    public var double: Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// True when the text has no fraction and no exponent.
    public var isInteger: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    public var description: String { text }

    /// The length of the RFC 8259 number starting at `start`, or nil when the bytes there do not
    /// start one. The caller checks what follows.
    static func grammarLength(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = start
        let n = bytes.count
        if i < n, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { return nil }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else if bytes[i] >= UInt8(ascii: "1"), bytes[i] <= UInt8(ascii: "9") {
            while i < n, isDigit(bytes[i]) { i += 1 }
        } else {
            return nil
        }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, isDigit(bytes[i]) else { return nil }
            while i < n, isDigit(bytes[i]) { i += 1 }
        }
        if i < n, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < n, isDigit(bytes[i]) else { return nil }
            while i < n, isDigit(bytes[i]) { i += 1 }
        }
        return i - start
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}
