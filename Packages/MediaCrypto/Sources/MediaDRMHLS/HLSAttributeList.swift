import Foundation

/// One attribute value as it is written. A bare value's type (decimal-integer, hexadecimal-
/// sequence, decimal-floating-point, enumerated-string, decimal-resolution) depends on the
/// attribute, so the list keeps it as text and the typed accessors interpret it.
public enum HLSAttributeValue: Sendable, Equatable, Hashable {
    case quotedString(String)
    case unquoted(String)
}

public struct HLSAttribute: Sendable, Equatable, Hashable {
    public var name: String
    public var value: HLSAttributeValue

    public init(name: String, value: HLSAttributeValue) {
        self.name = name
        self.value = value
    }

    public static func quoted(_ name: String, _ text: String) -> HLSAttribute { HLSAttribute(name: name, value: .quotedString(text)) }
    public static func unquoted(_ name: String, _ text: String) -> HLSAttribute { HLSAttribute(name: name, value: .unquoted(text)) }
}

/// An RFC 8216 §4.2 attribute list: `NAME=value` pairs separated by commas, in written order.
/// Names are `[A-Z0-9-]+` and unique; quoted strings may contain commas and may be empty;
/// whitespace appears only inside quotes.
public struct HLSAttributeList: Sendable, Equatable {
    public private(set) var attributes: [HLSAttribute]
    /// The playlist line the list came from, for error reports. Not part of equality.
    package let line: Int?

    public init(_ attributes: [HLSAttribute]) {
        self.attributes = attributes
        self.line = nil
    }

    /// Parses `text` (what follows `TAG:`). The attribute count is checked against
    /// `maxAttributes` before each attribute is stored.
    public init(parsing text: some StringProtocol, maxAttributes: Int = HLSLimits.default.maxAttributes, line: Int? = nil) throws(HLSError) {
        self.line = line
        self.attributes = []
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw HLSError(.malformedAttributeList, "empty attribute list", line: line) }
        var seen = Set<String>()
        var i = 0
        while true {
            guard attributes.count < maxAttributes else {
                throw HLSError(.tooManyAttributes, "attribute list exceeds the attribute limit", line: line)
            }
            let nameStart = i
            while i < bytes.count, bytes[i] != 0x3D {
                let b = bytes[i]
                guard HLSSyntax.isDigit(b) || (b >= 0x41 && b <= 0x5A) || b == 0x2D else {
                    throw HLSError(.malformedAttributeList, "attribute name has a character outside [A-Z0-9-]", line: line)
                }
                i += 1
            }
            guard i > nameStart else { throw HLSError(.malformedAttributeList, "empty attribute name", line: line) }
            guard i < bytes.count else { throw HLSError(.malformedAttributeList, "attribute without '='", line: line) }
            let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
            i += 1  // '='
            let value: HLSAttributeValue
            if i < bytes.count, bytes[i] == 0x22 {
                let contentStart = i + 1
                var j = contentStart
                while j < bytes.count, bytes[j] != 0x22 { j += 1 }
                guard j < bytes.count else {
                    throw HLSError(.unterminatedQuotedString, "quoted-string of \(name) has no closing quote", line: line)
                }
                value = .quotedString(String(decoding: bytes[contentStart..<j], as: UTF8.self))
                i = j + 1
            } else {
                let valueStart = i
                while i < bytes.count, bytes[i] != 0x2C { i += 1 }
                guard i > valueStart else { throw HLSError(.malformedAttributeList, "attribute \(name) has an empty value", line: line) }
                let raw = String(decoding: bytes[valueStart..<i], as: UTF8.self)
                guard HLSSyntax.isUnquotedValue(raw) else {
                    throw HLSError(.malformedAttributeList, "unquoted value of \(name) contains a quote, whitespace or control character", line: line)
                }
                value = .unquoted(raw)
            }
            guard seen.insert(name).inserted else {
                throw HLSError(.duplicateAttribute, "attribute \(name) appears twice", line: line)
            }
            attributes.append(HLSAttribute(name: name, value: value))
            if i == bytes.count { break }
            guard bytes[i] == 0x2C else {
                throw HLSError(.malformedAttributeList, "expected ',' after the value of \(name)", line: line)
            }
            i += 1
            guard i < bytes.count else { throw HLSError(.malformedAttributeList, "trailing ',' in attribute list", line: line) }
        }
    }

    public static func == (lhs: HLSAttributeList, rhs: HLSAttributeList) -> Bool { lhs.attributes == rhs.attributes }

    public var names: [String] { attributes.map(\.name) }

    public subscript(name: String) -> HLSAttributeValue? {
        attributes.first { $0.name == name }?.value
    }

    /// The list as written: `NAME=value,...`.
    public var text: String {
        attributes.map { attr in
            switch attr.value {
            case .quotedString(let s): return "\(attr.name)=\"\(s)\""
            case .unquoted(let s): return "\(attr.name)=\(s)"
            }
        }.joined(separator: ",")
    }

    // MARK: Typed accessors: nil when absent, invalidValue when present with the wrong type.

    public func quotedString(_ name: String) throws(HLSError) -> String? {
        switch self[name] {
        case nil: return nil
        case .quotedString(let s): return s
        case .unquoted: throw HLSError(.invalidValue, "\(name) must be a quoted-string", line: line)
        }
    }

    private func unquoted(_ name: String) throws(HLSError) -> String? {
        switch self[name] {
        case nil: return nil
        case .unquoted(let s): return s
        case .quotedString: throw HLSError(.invalidValue, "\(name) must not be quoted", line: line)
        }
    }

    public func enumeratedString(_ name: String) throws(HLSError) -> String? {
        try unquoted(name)
    }

    public func decimalInteger(_ name: String) throws(HLSError) -> Int? {
        guard let text = try unquoted(name) else { return nil }
        guard let v = HLSSyntax.decimalInteger(text) else {
            throw HLSError(.invalidValue, "\(name) must be a decimal-integer", line: line)
        }
        return v
    }

    public func decimalFloat(_ name: String) throws(HLSError) -> Double? {
        guard let text = try unquoted(name) else { return nil }
        guard let v = HLSSyntax.decimalFloat(text) else {
            throw HLSError(.invalidValue, "\(name) must be a decimal-floating-point", line: line)
        }
        return v.value
    }

    public func hexadecimalSequence(_ name: String) throws(HLSError) -> Data? {
        guard let text = try unquoted(name) else { return nil }
        guard let bytes = HLSSyntax.hexadecimalSequence(text) else {
            throw HLSError(.invalidHex, "\(name) must be 0x followed by hexadecimal digit pairs", line: line)
        }
        return Data(bytes)
    }

    public func resolution(_ name: String) throws(HLSError) -> HLSResolution? {
        guard let text = try unquoted(name) else { return nil }
        guard let v = HLSSyntax.resolution(text) else {
            throw HLSError(.invalidValue, "\(name) must be a decimal-resolution", line: line)
        }
        return v
    }

    /// YES/NO enumerated-strings; absent is `nil`.
    public func yesNo(_ name: String) throws(HLSError) -> Bool? {
        switch try unquoted(name) {
        case nil: return nil
        case "YES": return true
        case "NO": return false
        default: throw HLSError(.invalidValue, "\(name) must be YES or NO", line: line)
        }
    }

    /// The attributes whose names are not in `known`, in written order, for a tag model's
    /// `otherAttributes`.
    func others(excluding known: Set<String>) -> [HLSAttribute] {
        attributes.filter { !known.contains($0.name) }
    }
}
