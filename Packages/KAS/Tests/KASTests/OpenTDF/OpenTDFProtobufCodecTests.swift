import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMEncoding
import MediaDRMProtobuf
import Testing

/// The messages `Tools/python/opentdf_proto_vectors.py` builds with otdf-python's protobuf
/// classes (`kas_pb2`, python protobuf); their wire bytes are generated at test time
/// (`OpenTDFProtoVectors`), so what the codec is compared with comes from the real runtime.
private enum Vectors {
    static var expectedRewrapResponse: RewrapResponse {
        RewrapResponse(
            entityWrappedKey: Data([1, 2]), sessionPublicKey: "PEM", schemaVersion: "1.0.0",
            responses: [PolicyRewrapResult(policyID: "policy", results: [
                .permitted("kao-0", wrappedKey: Data([0xFF, 0x00, 0x10])),
                .failed("kao-1", "forbidden"),
            ])])
    }
}

private func bytes(_ hex: String) throws -> [UInt8] { Array(try Hex.decode(hex)) }

@Suite struct OpenTDFProtobufCodecTests {
    @Test func decodesAndReencodesThePythonRuntimeVectors() throws {
        let rewrapResponse = try OpenTDFProtoVectors.vector("rewrapResponse")
        let response = try RewrapResponse(protobuf: try bytes(rewrapResponse))
        #expect(response == Vectors.expectedRewrapResponse)
        #expect(Hex.encode(response.protobufData) == rewrapResponse)

        let publicKeyRequest = try OpenTDFProtoVectors.vector("publicKeyRequest")
        let request = try PublicKeyRequest(protobuf: try bytes(publicKeyRequest))
        #expect(request == PublicKeyRequest(algorithm: "ec:secp256r1", fmt: "pkcs8", v: "2"))
        #expect(Hex.encode(request.protobufData) == publicKeyRequest)

        let publicKeyResponse = try OpenTDFProtoVectors.vector("publicKeyResponse")
        let keyResponse = try PublicKeyResponse(protobuf: try bytes(publicKeyResponse))
        #expect(keyResponse == PublicKeyResponse(publicKey: "-----BEGIN PUBLIC KEY-----\n", kid: "k1"))
        #expect(Hex.encode(keyResponse.protobufData) == publicKeyResponse)

        let rewrapRequest = try OpenTDFProtoVectors.vector("rewrapRequest")
        let rewrap = try RewrapRequest(protobuf: try bytes(rewrapRequest))
        #expect(rewrap.signedRequestToken == "a.b.c")
        #expect(Hex.encode(rewrap.protobufData) == rewrapRequest)
    }

    @Test func emptyMessagesAreDefaults() throws {
        #expect(try RewrapRequest(protobuf: Data()) == RewrapRequest())
        #expect(try PublicKeyRequest(protobuf: Data()) == PublicKeyRequest())
        #expect(try RewrapResponse(protobuf: Data()) == RewrapResponse())
        #expect(RewrapResponse().protobufData.isEmpty)
        #expect(PublicKeyRequest().protobufData.isEmpty)
    }

    @Test func oneofMembersAreWrittenEvenWhenEmpty() throws {
        let result = PolicyRewrapResult(policyID: "p", results: [
            KeyAccessRewrapResult(keyAccessObjectID: "a", status: "fail", outcome: .error("")),
            KeyAccessRewrapResult(keyAccessObjectID: "b", status: "permit", outcome: .kasWrappedKey(Data())),
        ])
        let response = RewrapResponse(responses: [result])
        let decoded = try RewrapResponse(protobuf: response.protobufData)
        #expect(decoded == response)
        #expect(decoded.responses.first?.results.first?.error == "")
        #expect(decoded.responses.first?.results.last?.kasWrappedKey == Data())
    }

    @Test func roundTripsLargeAndUnicodeFields() throws {
        let token = String(repeating: "é", count: 70_000)   // 140 000 bytes: a 3-byte length varint
        let request = RewrapRequest(signedRequestToken: token)
        #expect(try RewrapRequest(protobuf: request.protobufData) == request)
        var responses: [PolicyRewrapResult] = []
        for index in 0..<20 {
            responses.append(PolicyRewrapResult(policyID: "policy-\(index)", results: (0..<5).map {
                .permitted("kao-\($0)", wrappedKey: Data(repeating: UInt8($0), count: 256))
            }))
        }
        let response = RewrapResponse(sessionPublicKey: "key", responses: responses)
        #expect(try RewrapResponse(protobuf: response.protobufData) == response)
    }

    @Test func unknownFieldsOfEveryWireTypeAreSkipped() throws {
        var writer = ProtobufWriter()
        writer.writeTag(9, .varint); writer.writeVarint(UInt64.max)
        writer.writeTag(10, .fixed64); writer.writeRaw([UInt8](repeating: 7, count: 8))
        writer.writeTag(11, .fixed32); writer.writeRaw([1, 2, 3, 4])
        writer.writeBytes(12, [UInt8](repeating: 0xFF, count: 5))   // not UTF-8, but unknown
        writer.writeString(2, "reserved bearer field")               // RewrapRequest field 2 is reserved
        writer.writeString(1, "tok")
        writer.writeTag(536_870_911, .varint); writer.writeVarint(1) // highest field number
        #expect(try RewrapRequest(protobuf: writer.data).signedRequestToken == "tok")

        // Field 1 of RewrapResponse is the metadata map: skipped, not an error.
        var response = ProtobufWriter()
        var entry = ProtobufWriter()
        entry.writeString(1, "key")
        response.writeMessage(1, entry)
        response.writeString(3, "pem")
        #expect(try RewrapResponse(protobuf: response.data).sessionPublicKey == "pem")
    }

    @Test func laterScalarOccurrenceWins() throws {
        var writer = ProtobufWriter()
        writer.writeString(1, "first")
        writer.writeString(1, "second")
        #expect(try RewrapRequest(protobuf: writer.data).signedRequestToken == "second")
    }

    /// Every prefix of an encoding either fails with a typed error or, when it ends exactly at a
    /// top-level field boundary, decodes to the message made of the fields before it. A prefix
    /// that cuts a length-delimited field (including every nested message) always fails.
    @Test func everyPrefixFailsCleanlyOrDecodesTheFieldsBeforeIt() throws {
        let full = try bytes(try OpenTDFProtoVectors.vector("rewrapResponse"))
        let boundaries = try topLevelFieldBoundaries(full)
        #expect(boundaries == [0, 4, 9, 16, 74])
        let expected = Vectors.expectedRewrapResponse
        let prefixMessages: [Int: RewrapResponse] = [
            0: RewrapResponse(),
            4: RewrapResponse(entityWrappedKey: expected.entityWrappedKey),
            9: RewrapResponse(entityWrappedKey: expected.entityWrappedKey, sessionPublicKey: "PEM"),
            16: RewrapResponse(entityWrappedKey: expected.entityWrappedKey, sessionPublicKey: "PEM", schemaVersion: "1.0.0"),
        ]
        for length in 0..<full.count {
            let prefix = Array(full[0..<length])
            if let message = prefixMessages[length] {
                #expect(try RewrapResponse(protobuf: prefix) == message, "prefix \(length)")
            } else {
                #expect(throws: ProtobufError.self, "prefix \(length)") { try RewrapResponse(protobuf: prefix) }
            }
        }

        for name in ["publicKeyRequest", "publicKeyResponse", "rewrapRequest"] {
            let vector = try OpenTDFProtoVectors.vector(name)
            let encoded = try bytes(vector)
            let ends = try topLevelFieldBoundaries(encoded)
            for length in 0..<encoded.count where !ends.contains(length) {
                let prefix = Array(encoded[0..<length])
                #expect(throws: ProtobufError.self) { try PublicKeyRequest(protobuf: prefix) }
                #expect(throws: ProtobufError.self) { try PublicKeyResponse(protobuf: prefix) }
                #expect(throws: ProtobufError.self) { try RewrapRequest(protobuf: prefix) }
            }
        }
    }

    private func topLevelFieldBoundaries(_ encoded: [UInt8]) throws -> [Int] {
        var reader = ProtobufReader(encoded)
        var ends = [0]
        while let tag = try reader.nextTag() {
            try reader.skip(tag.wireType)
            ends.append(reader.offset)
        }
        return ends
    }

    @Test(arguments: [
        // 11-byte varint tag.
        ("8080808080808080808001", ProtobufError.Code.malformedVarint),
        // 10-byte varint whose last byte overflows 64 bits.
        ("0a" + "ffffffffffffffffff02", .malformedVarint),
        // Length 2^63-1, far beyond the bytes left.
        ("0a" + "ffffffffffffffff7f", .invalidLength),
        // Length one more than the bytes left.
        ("0a04616263", .invalidLength),
        // Maximum 64-bit length.
        ("0a" + "ffffffffffffffffff01", .invalidLength),
        // Field number 0.
        ("0200", .invalidFieldNumber),
        // Field number 2^29 (one past the maximum).
        ("8280808010" + "00", .invalidFieldNumber),
        // Groups and reserved wire types.
        ("0b", .invalidWireType), ("0c", .invalidWireType), ("0e", .invalidWireType), ("0f", .invalidWireType),
        // Known string field sent as a varint.
        ("0801", .invalidWireType),
        // Truncated fixed-width unknown fields.
        ("49010203", .truncated), ("4d0102", .truncated),
        // Tag cut inside its varint.
        ("80", .truncated),
        // Invalid UTF-8 in the string field.
        ("0a02c328", .invalidUTF8),
        // Overlong UTF-8 encoding of '/'.
        ("0a02c0af", .invalidUTF8),
    ] as [(String, ProtobufError.Code)])
    func hostileInputsFailWithTheirCode(hex: String, code: ProtobufError.Code) throws {
        let input = try bytes(hex)
        #expect(throws: ProtobufError(code, "")) { try RewrapRequest(protobuf: input) }
    }

    @Test func nestedMessageErrorsPropagateAndAreBounded() throws {
        // A PolicyRewrapResult whose inner result claims more bytes than its parent holds.
        var inner = ProtobufWriter()
        inner.writeTag(2, .lengthDelimited)
        inner.writeVarint(50)
        inner.writeRaw(Array("abc".utf8))
        var outer = ProtobufWriter()
        outer.writeMessage(5, inner)
        #expect(throws: ProtobufError(.invalidLength, "")) { try RewrapResponse(protobuf: outer.data) }

        // The nested length fits the outer message but not the inner one.
        var policy = ProtobufWriter()
        policy.writeTag(2, .lengthDelimited)
        policy.writeVarint(10)
        var response = ProtobufWriter()
        response.writeMessage(5, policy)
        response.writeString(3, "0123456789")
        #expect(throws: ProtobufError(.invalidLength, "")) { try RewrapResponse(protobuf: response.data) }
    }
}
