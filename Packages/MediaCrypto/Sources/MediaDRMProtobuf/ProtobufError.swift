/// Every failure of the protobuf wire codec. Compared by `code`; `reason` names the problem
/// (field number, offset, limit) and never the field's contents.
public struct ProtobufError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The input ends inside a tag, a varint, a fixed-width value or a length-delimited field.
        case truncated
        /// A varint is longer than 10 bytes or does not fit in 64 bits.
        case malformedVarint
        /// A length prefix is larger than the bytes left (or than any size this codec accepts).
        case invalidLength
        /// Field number 0 or above 2^29-1.
        case invalidFieldNumber
        /// Wire type 3, 4 (groups), 6 or 7, or a known field sent with the wrong wire type.
        case invalidWireType
        /// Nested messages deeper than the limit.
        case tooDeep
        /// A `string` field is not valid UTF-8.
        case invalidUTF8
    }

    public let code: Code
    public let reason: String
    /// Byte offset in the outermost message where the problem was found, when known.
    public let offset: Int?

    public init(_ code: Code, _ reason: String, offset: Int? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        if let offset { return "protobuf error (\(code.rawValue)) at offset \(offset): \(reason)" }
        return "protobuf error (\(code.rawValue)): \(reason)"
    }

    public static func == (lhs: ProtobufError, rhs: ProtobufError) -> Bool { lhs.code == rhs.code }
}
