import Foundation

/// Writes RFC 8259 JSON as UTF-8.
///
/// Escaping is minimal and deterministic: `"` and `\` are escaped, control characters use the
/// short forms `\b \t \n \f \r` where JSON has them and `\u00xx` (lowercase hex) otherwise;
/// everything else, '/' and non-ASCII included, is written as its UTF-8 bytes. Numbers are written
/// as their exact text. With `.sortedKeys` members are ordered by the UTF-8 bytes of their keys,
/// so the same value always gives the same bytes.
public enum JSONWriter {
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Members ordered by the UTF-8 bytes of their keys instead of their stored order.
        public static let sortedKeys = Options(rawValue: 1 << 0)
        /// Two-space indentation, one member or element per line, ": " between key and value.
        public static let prettyPrinted = Options(rawValue: 1 << 1)
        /// Accepted for familiarity with Foundation: '/' is never escaped by this writer.
        public static let withoutEscapingSlashes = Options(rawValue: 1 << 2)
    }

    public static func write(_ value: JSONValue, options: Options = [.sortedKeys]) -> Data {
        Data(bytes(value, options: options))
    }

    /// The same bytes as `write`, as an array.
    public static func bytes(_ value: JSONValue, options: Options = [.sortedKeys]) -> [UInt8] {
        var emitter = Emitter(options: options)
        emitter.emit(value, depth: 0)
        return emitter.out
    }

    /// The same bytes as `write`, as a string.
    public static func string(_ value: JSONValue, options: Options = [.sortedKeys]) -> String {
        String(decoding: bytes(value, options: options), as: UTF8.self)
    }

    private struct Emitter {
        let sorted: Bool
        let pretty: Bool
        var out: [UInt8] = []

        init(options: Options) {
            sorted = options.contains(.sortedKeys)
            pretty = options.contains(.prettyPrinted)
        }

        mutating func emit(_ value: JSONValue, depth: Int) {
            switch value {
            case .null: out.append(contentsOf: "null".utf8)
            case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .number(let number): out.append(contentsOf: number.text.utf8)
            case .string(let string): emitString(string)
            case .array(let elements):
                guard !elements.isEmpty else {
                    out.append(contentsOf: "[]".utf8)
                    return
                }
                out.append(UInt8(ascii: "["))
                for (position, element) in elements.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    newline(depth + 1)
                    emit(element, depth: depth + 1)
                }
                newline(depth)
                out.append(UInt8(ascii: "]"))
            case .object(let object):
                guard !object.isEmpty else {
                    out.append(contentsOf: "{}".utf8)
                    return
                }
                var members = object.members
                if sorted {
                    members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                }
                out.append(UInt8(ascii: "{"))
                for (position, member) in members.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    newline(depth + 1)
                    emitString(member.key)
                    out.append(UInt8(ascii: ":"))
                    if pretty { out.append(UInt8(ascii: " ")) }
                    emit(member.value, depth: depth + 1)
                }
                newline(depth)
                out.append(UInt8(ascii: "}"))
            }
        }

        private mutating func newline(_ depth: Int) {
            guard pretty else { return }
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
        }

        private static let hex = Array("0123456789abcdef".utf8)

        private mutating func emitString(_ string: String) {
            out.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
                case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
                case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
                case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
                case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
                case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
                case 0x00..<0x20:
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(Emitter.hex[Int(byte >> 4)])
                    out.append(Emitter.hex[Int(byte & 0x0F)])
                default:
                    out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
    }
}
