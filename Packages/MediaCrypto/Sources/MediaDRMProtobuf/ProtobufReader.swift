// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), read with bounds
// checks and written in field order: the binary form of the OpenTDF KAS messages that the
// Connect routes take (docs/protocol.md "OpenTDF routes"). Message types are their users'; this
// module knows only tags, varints, fixed-width and length-delimited values.
import Foundation

/// The protobuf wire types this codec reads. Groups (3, 4) are refused: no message here uses
/// them and proto3 has none.
public enum ProtobufWireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case fixed32 = 5
}

/// One field key: field number and wire type.
public struct ProtobufTag: Sendable, Equatable {
    public let fieldNumber: Int
    public let wireType: ProtobufWireType
}

/// A checked reader over an encoded protobuf message (a window of a byte array). Every length
/// is checked against the bytes left before anything is sliced; nested messages are read with
/// a depth budget; unknown fields are skipped by wire type.
public struct ProtobufReader: Sendable {
    /// Deepest nesting of messages accepted (the OpenTDF KAS messages need 4).
    public static let maximumDepth = 16
    public static let maximumFieldNumber = (1 << 29) - 1

    private let bytes: [UInt8]
    private var position: Int
    private let end: Int
    /// Nesting level of this reader (0 for the outermost message).
    public let depth: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
        self.end = bytes.count
        self.depth = 0
    }

    public init(_ data: some DataProtocol) {
        self.init(Array(data))
    }

    private init(bytes: [UInt8], range: Range<Int>, depth: Int) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
        self.depth = depth
    }

    public var isAtEnd: Bool { position >= end }
    /// Offset of the next byte in the outermost message.
    public var offset: Int { position }

    /// The next field key, or nil at the end of the message.
    public mutating func nextTag() throws(ProtobufError) -> ProtobufTag? {
        guard position < end else { return nil }
        let start = position
        let key = try readVarint()
        let number = key >> 3
        guard number >= 1, number <= UInt64(Self.maximumFieldNumber) else {
            throw ProtobufError(.invalidFieldNumber, "field number out of range", offset: start)
        }
        guard let wireType = ProtobufWireType(rawValue: UInt8(key & 7)) else {
            throw ProtobufError(.invalidWireType, "wire type \(key & 7) of field \(number) is not supported", offset: start)
        }
        return ProtobufTag(fieldNumber: Int(number), wireType: wireType)
    }

    /// A base-128 varint of at most 10 bytes whose value fits in 64 bits.
    public mutating func readVarint() throws(ProtobufError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else {
                throw ProtobufError(.truncated, "the message ends inside a varint", offset: start)
            }
            let byte = bytes[position]
            position += 1
            if shift == 63, byte > 1 {
                throw ProtobufError(.malformedVarint, "varint does not fit in 64 bits", offset: start)
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
            if shift > 63 {
                throw ProtobufError(.malformedVarint, "varint is longer than 10 bytes", offset: start)
            }
        }
    }

    /// The payload of a length-delimited field, as a range of the underlying bytes.
    private mutating func readLengthDelimitedRange() throws(ProtobufError) -> Range<Int> {
        let start = position
        let length = try readVarint()
        guard length <= UInt64(end - position) else {
            throw ProtobufError(.invalidLength, "length-delimited field is longer than the bytes left", offset: start)
        }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    public mutating func readBytes() throws(ProtobufError) -> Data {
        Data(bytes[try readLengthDelimitedRange()])
    }

    /// A `string` field; proto3 requires valid UTF-8.
    public mutating func readString() throws(ProtobufError) -> String {
        let start = position
        let range = try readLengthDelimitedRange()
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw ProtobufError(.invalidUTF8, "string field is not valid UTF-8", offset: start)
        }
        return text
    }

    /// A reader over an embedded message, one level deeper.
    public mutating func readMessage() throws(ProtobufError) -> ProtobufReader {
        let start = position
        guard depth + 1 <= Self.maximumDepth else {
            throw ProtobufError(.tooDeep, "messages nest deeper than \(Self.maximumDepth)", offset: start)
        }
        let range = try readLengthDelimitedRange()
        return ProtobufReader(bytes: bytes, range: range, depth: depth + 1)
    }

    /// Skips the value of a field this message does not know.
    public mutating func skip(_ wireType: ProtobufWireType) throws(ProtobufError) {
        let start = position
        switch wireType {
        case .varint:
            _ = try readVarint()
        case .lengthDelimited:
            _ = try readLengthDelimitedRange()
        case .fixed64, .fixed32:
            let width = wireType == .fixed64 ? 8 : 4
            guard end - position >= width else {
                throw ProtobufError(.truncated, "the message ends inside a fixed-width field", offset: start)
            }
            position += width
        }
    }

    /// Checks that a known field arrived with its declared wire type.
    public static func expect(_ tag: ProtobufTag, _ wireType: ProtobufWireType) throws(ProtobufError) {
        guard tag.wireType == wireType else {
            throw ProtobufError(.invalidWireType, "field \(tag.fieldNumber) has wire type \(tag.wireType.rawValue), expected \(wireType.rawValue)")
        }
    }
}
