import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import Testing

private func object(_ text: String) throws -> JSONObject {
    guard case .object(let object) = try JSONParser.parse(Data(text.utf8)) else {
        throw OpenTDFError(.malformedRequest, "not an object")
    }
    return object
}

@Suite struct OpenTDFProtoJSONTests {
    @Test func rewrapResponseMatchesTheProtobufRuntimeJSON() throws {
        // What the python protobuf runtime's json_format writes for the codec vector, generated
        // now from otdf-python's classes (Tools/python/opentdf_proto_vectors.py).
        let pythonJSON = try OpenTDFProtoVectors.vector("rewrapResponseJSON")
        let parsed = try RewrapResponse(json: object(pythonJSON))
        #expect(parsed.sessionPublicKey == "PEM")
        #expect(parsed.responses.first?.results.first?.kasWrappedKey == Data([0xFF, 0x00, 0x10]))
        #expect(parsed.responses.first?.results.last?.error == "forbidden")
        // Same members and values as the runtime wrote (object equality ignores member order).
        #expect(try JSONParser.parse(JSONWriter.write(parsed.jsonValue)) == JSONParser.parse(Data(pythonJSON.utf8)))
        #expect(try RewrapResponse(json: object(String(decoding: JSONWriter.write(parsed.jsonValue), as: UTF8.self))) == parsed)
    }

    @Test func defaultsAreOmitted() {
        #expect(RewrapResponse().jsonValue == .object(JSONObject()))
        #expect(PublicKeyResponse(publicKey: "pem").jsonValue == .object(JSONObject([("publicKey", .string("pem"))])))
        #expect(RewrapRequest().jsonValue == .object(JSONObject()))
    }

    @Test func protoNamesNullsAndUnknownMembers() throws {
        #expect(try RewrapRequest(json: object(#"{"signed_request_token": "t"}"#)).signedRequestToken == "t")
        #expect(try RewrapRequest(json: object(#"{"signedRequestToken": null, "extra": [1, 2]}"#)).signedRequestToken == "")
        #expect(try PublicKeyResponse(json: object(#"{"public_key": "p", "kid": "k"}"#)) == PublicKeyResponse(publicKey: "p", kid: "k"))
        #expect(try PublicKeyRequest(json: object(#"{"algorithm": "ec:secp256r1", "fmt": null}"#)) == PublicKeyRequest(algorithm: "ec:secp256r1"))
    }

    @Test func bothSpellingsOrWrongTypesAreRefused() throws {
        #expect(throws: OpenTDFError(.malformedRequest, "")) {
            try RewrapRequest(json: object(#"{"signedRequestToken": "a", "signed_request_token": "b"}"#))
        }
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try RewrapRequest(json: object(#"{"signedRequestToken": 1}"#)) }
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try PublicKeyRequest(json: object(#"{"algorithm": ["rsa"]}"#)) }
        #expect(throws: OpenTDFError(.malformedRequest, "")) {
            try RewrapResponse(json: object(#"{"responses": [{"results": [{"kasWrappedKey": "AA==", "error": "x"}]}]}"#))
        }
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try RewrapResponse(json: object(#"{"entityWrappedKey": "not base64!"}"#)) }
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try RewrapResponse(json: object(#"{"responses": {}}"#)) }
    }

    @Test(arguments: ["/wAQ", "_wAQ", "/wA=".replacingOccurrences(of: "=", with: ""), "_wA"])
    func bytesAcceptBothAlphabetsPaddedOrNot(text: String) throws {
        let decoded = try ProtoJSON.decodeBytes(text, field: "f")
        #expect(decoded.first == 0xFF)
    }

    @Test(arguments: ["/w-Q", "A", "AAA=A", "A A=", "é"])
    func malformedBytesAreRefused(text: String) {
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try ProtoJSON.decodeBytes(text, field: "f") }
    }
}
