import Foundation
import MediaDRMEncoding
import MediaDRMProtobuf
import Testing

/// Walks every field of a message, nested messages included where `nested` says a field is one,
/// the way a message decoder does; returns the (field, wire type) pairs seen.
private func walk(_ reader: inout ProtobufReader, nested: Set<Int> = []) throws(ProtobufError) -> [ProtobufTag] {
    var seen: [ProtobufTag] = []
    while let tag = try reader.nextTag() {
        seen.append(tag)
        if nested.contains(tag.fieldNumber), tag.wireType == .lengthDelimited {
            var inner = try reader.readMessage()
            seen += try walk(&inner, nested: nested)
        } else {
            try reader.skip(tag.wireType)
        }
    }
    return seen
}

private func bytes(_ hex: String) throws -> [UInt8] { Array(try Hex.decode(hex)) }

@Suite struct ProtobufCodecTests {
    @Test func varintsRoundTripAtTheirEdges() throws {
        for value: UInt64 in [0, 1, 127, 128, 16_383, 16_384, UInt64(UInt32.max), UInt64.max >> 1, UInt64.max] {
            var writer = ProtobufWriter()
            writer.writeVarint(value)
            var reader = ProtobufReader(writer.bytes)
            #expect(try reader.readVarint() == value)
            #expect(reader.isAtEnd)
        }
        var writer = ProtobufWriter()
        writer.writeVarint(UInt64.max)
        #expect(writer.bytes.count == 10)
        #expect(writer.bytes.last == 1)
    }

    @Test func fieldsOfEveryWireTypeRoundTrip() throws {
        var inner = ProtobufWriter()
        inner.writeString(1, "héllo")
        var writer = ProtobufWriter()
        writer.writeTag(1, .varint); writer.writeVarint(300)
        writer.writeTag(2, .fixed64); writer.writeRaw([UInt8](repeating: 7, count: 8))
        writer.writeTag(3, .fixed32); writer.writeRaw([1, 2, 3, 4])
        writer.writeBytes(4, [0xFF, 0x00])
        writer.writeMessage(5, inner)
        writer.writeTag(ProtobufReader.maximumFieldNumber, .varint); writer.writeVarint(1)
        var reader = ProtobufReader(writer.bytes)
        #expect(try walk(&reader, nested: [5]).map(\.fieldNumber) == [1, 2, 3, 4, 5, 1, ProtobufReader.maximumFieldNumber])

        var again = ProtobufReader(writer.bytes)
        _ = try again.nextTag(); #expect(try again.readVarint() == 300)
        _ = try again.nextTag(); try again.skip(.fixed64)
        _ = try again.nextTag(); try again.skip(.fixed32)
        _ = try again.nextTag(); #expect(try again.readBytes() == Data([0xFF, 0x00]))
        _ = try again.nextTag()
        var message = try again.readMessage()
        #expect(message.depth == 1)
        _ = try message.nextTag()
        #expect(try message.readString() == "héllo")
    }

    /// Empty strings and bytes are omitted (proto3 defaults) unless `always`, as a oneof needs.
    @Test func defaultsAreOmittedUnlessAsked() {
        var writer = ProtobufWriter()
        writer.writeString(1, "")
        writer.writeBytes(2, [])
        #expect(writer.bytes.isEmpty)
        writer.writeString(1, "", always: true)
        #expect(writer.bytes == [0x0A, 0x00])
    }

    @Test(arguments: [
        ("8080808080808080808001", ProtobufError.Code.malformedVarint),   // an 11-byte varint tag
        ("0a" + "ffffffffffffffffff02", .malformedVarint),                  // a length past 64 bits
        ("0a" + "ffffffffffffffff7f", .invalidLength),                      // 2^63-1 bytes announced
        ("0a" + "ffffffffffffffffff01", .invalidLength),                    // the largest 64-bit length
        ("0a04616263", .invalidLength),                                     // one byte more than is left
        ("0200", .invalidFieldNumber),                                      // field 0
        ("828080801000", .invalidFieldNumber),                              // field 2^29
        ("0b", .invalidWireType), ("0c", .invalidWireType),                 // groups
        ("0e", .invalidWireType), ("0f", .invalidWireType),                 // reserved wire types
        ("49010203", .truncated), ("4d0102", .truncated),                   // cut fixed-width values
        ("80", .truncated),                                                 // a tag cut inside its varint
        ("08", .truncated),                                                 // a varint value missing
    ] as [(String, ProtobufError.Code)])
    func hostileInputsFailWithTheirCode(hex: String, code: ProtobufError.Code) throws {
        var reader = ProtobufReader(try bytes(hex))
        #expect(throws: ProtobufError(code, "")) { try walk(&reader) }
    }

    @Test func stringsMustBeUTF8() throws {
        for hex in ["0a02c328", "0a02c0af"] {   // a cut sequence; an overlong '/'
            var reader = ProtobufReader(try bytes(hex))
            #expect(throws: ProtobufError(.invalidUTF8, "")) {
                _ = try reader.nextTag()
                _ = try reader.readString()
            }
        }
    }

    @Test func expectRefusesAKnownFieldOfAnotherWireType() throws {
        var reader = ProtobufReader(try bytes("0801"))
        let tag = try #require(try reader.nextTag())
        #expect(throws: ProtobufError(.invalidWireType, "")) { try ProtobufReader.expect(tag, .lengthDelimited) }
    }

    /// Every prefix of a message with nested fields fails with a typed error unless it ends at a
    /// top-level field boundary; a nested message is never read past its own length.
    @Test func everyPrefixFailsCleanlyOrEndsAtAFieldBoundary() throws {
        var inner = ProtobufWriter()
        inner.writeString(1, "inner text")
        inner.writeTag(2, .varint); inner.writeVarint(1 << 40)
        var writer = ProtobufWriter()
        writer.writeString(1, "first")
        writer.writeMessage(2, inner)
        writer.writeTag(3, .fixed32); writer.writeRaw([9, 9, 9, 9])
        let full = writer.bytes
        var boundaries: Set<Int> = [0]
        var reader = ProtobufReader(full)
        while let tag = try reader.nextTag() {
            try reader.skip(tag.wireType)
            boundaries.insert(reader.offset)
        }
        for length in 0...full.count {
            var prefix = ProtobufReader(Array(full[0..<length]))
            if boundaries.contains(length) {
                #expect(throws: Never.self, "prefix \(length)") { _ = try walk(&prefix, nested: [2]) }
            } else {
                #expect(throws: ProtobufError.self, "prefix \(length)") { _ = try walk(&prefix, nested: [2]) }
            }
        }
    }

    @Test func nestingIsBounded() throws {
        var encoded: [UInt8] = []
        for _ in 0..<20 {
            var writer = ProtobufWriter()
            writer.writeBytes(1, encoded, always: true)
            encoded = writer.bytes
        }
        var reader = ProtobufReader(encoded)
        var depthReached = 0
        let error = #expect(throws: ProtobufError.self) {
            while true {
                guard try reader.nextTag() != nil else { return }
                reader = try reader.readMessage()
                depthReached = reader.depth
            }
        }
        #expect(error?.code == .tooDeep)
        #expect(depthReached == ProtobufReader.maximumDepth)
    }
}
