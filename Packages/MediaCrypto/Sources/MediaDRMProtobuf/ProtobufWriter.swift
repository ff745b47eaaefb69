import Foundation

/// Appends protobuf wire encoding. Fields are written in the order called; the message types
/// here call them in field-number order and omit proto3 default values (as protoc does).
public struct ProtobufWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var data: Data { Data(bytes) }

    public mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Bytes as they are (the value of a fixed32/fixed64 field, little-endian).
    public mutating func writeRaw(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    public mutating func writeTag(_ fieldNumber: Int, _ wireType: ProtobufWireType) {
        writeVarint(UInt64(fieldNumber) << 3 | UInt64(wireType.rawValue))
    }

    /// A `string` field; nothing is written for "" unless `always` (oneof members).
    public mutating func writeString(_ fieldNumber: Int, _ value: String, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        writeBytes(fieldNumber, Array(value.utf8), always: true)
    }

    /// A `bytes` field; nothing is written when empty unless `always` (oneof members).
    public mutating func writeBytes(_ fieldNumber: Int, _ value: some Collection<UInt8>, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        writeTag(fieldNumber, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// An embedded message (always written: a present message is distinct from an absent one).
    public mutating func writeMessage(_ fieldNumber: Int, _ message: ProtobufWriter) {
        writeBytes(fieldNumber, message.bytes, always: true)
    }
}
