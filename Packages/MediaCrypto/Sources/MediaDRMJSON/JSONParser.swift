import Foundation

/// A strict RFC 8259 parser.
///
/// It refuses everything the grammar does not allow (leading zeros, '+', NaN, trailing commas,
/// single quotes, comments, a byte order mark, raw control characters in strings, bad escapes,
/// lone surrogates, ill-formed UTF-8 anywhere in a string), refuses duplicate keys at every depth
/// after unescaping, and enforces `JSONLimits`. It works over bytes with an index and an explicit
/// stack instead of recursion, so no input can exhaust the call stack, and every read is
/// bounds-checked first, so no input can trap.
public enum JSONParser {
    public static func parse(_ bytes: some DataProtocol, limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw JSONError(.tooLarge, "document is larger than \(limits.maxBytes) bytes", offset: limits.maxBytes)
        }
        let array = (bytes as? [UInt8]) ?? Array(bytes)
        var parser = JSONByteParser(bytes: array, limits: limits, recordSpans: false)
        return try parser.parseDocument()
    }

    /// Parse and also report the exact byte range of every value by key path, so a binding can be
    /// verified over the exact bytes that were received.
    public static func parseWithSpans(_ bytes: [UInt8], limits: JSONLimits = .default) throws(JSONError) -> (value: JSONValue, spans: JSONSpans) {
        guard bytes.count <= limits.maxBytes else {
            throw JSONError(.tooLarge, "document is larger than \(limits.maxBytes) bytes", offset: limits.maxBytes)
        }
        var parser = JSONByteParser(bytes: bytes, limits: limits, recordSpans: true)
        let value = try parser.parseDocument()
        return (value, JSONSpans(parser.spans))
    }
}

private enum ASCII {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let lowerE = UInt8(ascii: "e")
    static let upperE = UInt8(ascii: "E")
    static let lowerU = UInt8(ascii: "u")
}

struct JSONByteParser {
    private let bytes: [UInt8]
    private let count: Int
    private let limits: JSONLimits
    private let recordSpans: Bool
    private var position = 0
    private(set) var spans: [[JSONPathComponent]: Range<Int>] = [:]

    /// An open container on the explicit stack.
    private struct Frame {
        let isObject: Bool
        let start: Int
        var elements: [JSONValue] = []
        var object = JSONObject()
        var key = ""
    }

    init(bytes: [UInt8], limits: JSONLimits, recordSpans: Bool) {
        self.bytes = bytes
        self.count = bytes.count
        self.limits = limits
        self.recordSpans = recordSpans
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        var stack: [Frame] = []
        var path: [JSONPathComponent] = []
        skipWhitespace()

        nextValue: while true {
            guard position < count else { throw truncated("expected a value") }
            var valueStart = position
            var value: JSONValue
            let byte = bytes[position]
            switch byte {
            case ASCII.openBrace, ASCII.openBracket:
                guard stack.count < limits.maxDepth else {
                    throw JSONError(.tooDeep, "nesting deeper than \(limits.maxDepth)", offset: position)
                }
                position += 1
                skipWhitespace()
                guard position < count else { throw truncated("unterminated container") }
                if byte == ASCII.openBrace {
                    if bytes[position] == ASCII.closeBrace {
                        position += 1
                        value = .object(JSONObject())
                    } else {
                        var frame = Frame(isObject: true, start: valueStart)
                        frame.key = try parseMemberKey(in: frame.object)
                        stack.append(frame)
                        if recordSpans { path.append(.key(frame.key)) }
                        continue nextValue
                    }
                } else {
                    if bytes[position] == ASCII.closeBracket {
                        position += 1
                        value = .array([])
                    } else {
                        stack.append(Frame(isObject: false, start: valueStart))
                        if recordSpans { path.append(.index(0)) }
                        continue nextValue
                    }
                }
            case ASCII.quote:
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral(JSONByteParser.trueBytes)
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral(JSONByteParser.falseBytes)
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral(JSONByteParser.nullBytes)
                value = .null
            case ASCII.minus, ASCII.zero...ASCII.nine:
                value = .number(try parseNumber())
            case ASCII.plus, ASCII.dot:
                throw JSONError(.invalidNumber, "a number must start with '-' or a digit", offset: position)
            default:
                throw JSONError(.unexpectedCharacter, "expected a value", offset: position)
            }

            // A value is complete: hand it to its container, closing containers as they end.
            while true {
                if recordSpans { spans[path] = valueStart..<position }
                skipWhitespace()
                guard let top = stack.indices.last else {
                    guard position == count else {
                        throw JSONError(.trailingData, "data after the end of the document", offset: position)
                    }
                    return value
                }
                guard position < count else { throw truncated("unterminated container") }
                let separator = bytes[position]
                if stack[top].isObject {
                    let key = stack[top].key
                    _ = stack[top].object.appendUnique(key, value)
                    if separator == ASCII.comma {
                        position += 1
                        skipWhitespace()
                        guard stack[top].object.count < limits.maxMembers else {
                            throw JSONError(.tooLarge, "object has more than \(limits.maxMembers) members", offset: position)
                        }
                        let next = try parseMemberKey(in: stack[top].object)
                        stack[top].key = next
                        if recordSpans { path[path.count - 1] = .key(next) }
                        continue nextValue
                    }
                    guard separator == ASCII.closeBrace else {
                        throw JSONError(.unexpectedCharacter, "expected ',' or '}' in object", offset: position)
                    }
                    position += 1
                    let frame = stack.removeLast()
                    if recordSpans { path.removeLast() }
                    value = .object(frame.object)
                    valueStart = frame.start
                } else {
                    stack[top].elements.append(value)
                    if separator == ASCII.comma {
                        position += 1
                        skipWhitespace()
                        let elementCount = stack[top].elements.count
                        guard elementCount < limits.maxMembers else {
                            throw JSONError(.tooLarge, "array has more than \(limits.maxMembers) elements", offset: position)
                        }
                        if recordSpans { path[path.count - 1] = .index(elementCount) }
                        continue nextValue
                    }
                    guard separator == ASCII.closeBracket else {
                        throw JSONError(.unexpectedCharacter, "expected ',' or ']' in array", offset: position)
                    }
                    position += 1
                    let frame = stack.removeLast()
                    if recordSpans { path.removeLast() }
                    value = .array(frame.elements)
                    valueStart = frame.start
                }
            }
        }
    }

    // MARK: - Pieces

    private func truncated(_ what: String) -> JSONError {
        JSONError(.truncated, "input ended early: \(what)", offset: position)
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// Reads `"key"` `:` and the whitespace after it, refusing a key already in `object`.
    private mutating func parseMemberKey(in object: JSONObject) throws(JSONError) -> String {
        guard position < count else { throw truncated("expected a member name") }
        guard bytes[position] == ASCII.quote else {
            throw JSONError(.unexpectedCharacter, "expected a string member name", offset: position)
        }
        let keyOffset = position
        let key = try parseString()
        if object.contains(key: key) {
            throw JSONError(.duplicateKey, "duplicate member name \(JSONError.quoted(key))", offset: keyOffset)
        }
        skipWhitespace()
        guard position < count else { throw truncated("expected ':'") }
        guard bytes[position] == ASCII.colon else {
            throw JSONError(.unexpectedCharacter, "expected ':' after a member name", offset: position)
        }
        position += 1
        skipWhitespace()
        return key
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)

    private mutating func expectLiteral(_ literal: [UInt8]) throws(JSONError) {
        let start = position
        let length = literal.count
        for (k, expected) in literal.enumerated() {
            guard start + k < count else { throw truncated("incomplete literal") }
            guard bytes[start + k] == expected else {
                throw JSONError(.unexpectedCharacter, "invalid literal", offset: start + k)
            }
        }
        position = start + length
    }

    private mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = position
        guard let length = JSONNumber.grammarLength(bytes, from: start) else {
            throw JSONError(.invalidNumber, "number does not match the JSON grammar", offset: start)
        }
        let end = start + length
        if end < count {
            switch bytes[end] {
            case ASCII.zero...ASCII.nine, ASCII.dot, ASCII.lowerE, ASCII.upperE, ASCII.plus, ASCII.minus:
                // "01", "1.2.3", "1e5e": the grammar stopped inside what is meant as one number.
                throw JSONError(.invalidNumber, "number does not match the JSON grammar", offset: start)
            default:
                break
            }
        }
        guard length <= limits.maxStringBytes else {
            throw JSONError(.tooLarge, "number longer than \(limits.maxStringBytes) bytes", offset: start)
        }
        position = end
        return JSONNumber(validatedText: String(decoding: bytes[start..<end], as: UTF8.self))
    }

    /// Reads a string starting at its opening quote. Unescaped runs are copied in one piece; the
    /// UTF-8 is validated here, so the final `String(decoding:)` never repairs anything.
    private mutating func parseString() throws(JSONError) -> String {
        let open = position
        position += 1
        var runStart = position
        var decoded: [UInt8] = []
        var sawEscape = false
        while true {
            guard position < count else {
                throw JSONError(.truncated, "input ended inside a string", offset: open)
            }
            let byte = bytes[position]
            if byte == ASCII.quote {
                let result: String
                if sawEscape {
                    decoded.append(contentsOf: bytes[runStart..<position])
                    guard decoded.count <= limits.maxStringBytes else { throw stringTooLong(open) }
                    result = String(decoding: decoded, as: UTF8.self)
                } else {
                    guard position - runStart <= limits.maxStringBytes else { throw stringTooLong(open) }
                    result = String(decoding: bytes[runStart..<position], as: UTF8.self)
                }
                position += 1
                return result
            }
            if byte == ASCII.backslash {
                if !sawEscape {
                    sawEscape = true
                    decoded.reserveCapacity(Swift.min(count - open, limits.maxStringBytes))
                }
                decoded.append(contentsOf: bytes[runStart..<position])
                try parseEscape(into: &decoded)
                runStart = position
                continue
            }
            if byte < 0x20 {
                throw JSONError(.invalidString, "unescaped control character in a string", offset: position)
            }
            if byte < 0x80 {
                position += 1
            } else {
                try skipUTF8Scalar()
            }
        }
    }

    private func stringTooLong(_ offset: Int) -> JSONError {
        JSONError(.tooLarge, "string longer than \(limits.maxStringBytes) bytes", offset: offset)
    }

    /// Validates one multi-byte UTF-8 scalar (RFC 3629 table: no overlongs, no surrogates, nothing
    /// above U+10FFFF) and steps over it.
    private mutating func skipUTF8Scalar() throws(JSONError) {
        let lead = bytes[position]
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        let continuations: Int
        switch lead {
        case 0xC2...0xDF: continuations = 1
        case 0xE0: continuations = 2; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: continuations = 2
        case 0xED: continuations = 2; high = 0x9F
        case 0xF0: continuations = 3; low = 0x90
        case 0xF1...0xF3: continuations = 3
        case 0xF4: continuations = 3; high = 0x8F
        default:
            throw JSONError(.invalidUTF8, "invalid UTF-8 lead byte", offset: position)
        }
        for k in 1...continuations {
            guard position + k < count else {
                throw JSONError(.truncated, "input ended inside a UTF-8 sequence", offset: position)
            }
            let byte = bytes[position + k]
            let (lower, upper) = k == 1 ? (low, high) : (0x80, 0xBF)
            guard byte >= lower, byte <= upper else {
                throw JSONError(.invalidUTF8, "invalid UTF-8 sequence", offset: position)
            }
        }
        position += continuations + 1
    }

    /// Reads an escape starting at its backslash and appends the UTF-8 it stands for.
    private mutating func parseEscape(into decoded: inout [UInt8]) throws(JSONError) {
        let start = position
        guard position + 1 < count else { throw truncated("incomplete escape") }
        let letter = bytes[position + 1]
        position += 2
        switch letter {
        case ASCII.quote, ASCII.backslash, ASCII.slash: decoded.append(letter)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case ASCII.lowerU:
            let unit = try readHex4()
            var scalar = unit
            switch unit {
            case 0xD800...0xDBFF:
                guard position < count else { throw truncated("expected a low surrogate escape") }
                guard bytes[position] == ASCII.backslash else { throw loneSurrogate(start) }
                guard position + 1 < count else { throw truncated("expected a low surrogate escape") }
                guard bytes[position + 1] == ASCII.lowerU else { throw loneSurrogate(start) }
                position += 2
                let second = try readHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw loneSurrogate(start) }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (second - 0xDC00)
            case 0xDC00...0xDFFF:
                throw loneSurrogate(start)
            default:
                break
            }
            JSONByteParser.appendUTF8(scalar, to: &decoded)
        default:
            throw JSONError(.invalidEscape, "invalid escape sequence", offset: start)
        }
    }

    private func loneSurrogate(_ offset: Int) -> JSONError {
        JSONError(.invalidEscape, "\\u escape of a lone UTF-16 surrogate", offset: offset)
    }

    private mutating func readHex4() throws(JSONError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard position < count else { throw truncated("incomplete \\u escape") }
            let byte = bytes[position]
            let nibble: UInt8
            switch byte {
            case ASCII.zero...ASCII.nine: nibble = byte - ASCII.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default:
                throw JSONError(.invalidEscape, "\\u escape needs four hex digits", offset: position)
            }
            unit = unit << 4 | UInt32(nibble)
            position += 1
        }
        return unit
    }

    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}

extension JSONError {
    /// A member name for a reason: quoted, and cut short so hostile input cannot bloat logs.
    static func quoted(_ key: String) -> String {
        let limit = 64
        if key.utf8.count <= limit { return "\"\(key)\"" }
        return "\"\(String(decoding: key.utf8.prefix(limit), as: UTF8.self))…\""
    }
}
