import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMMedia
import Testing
@testable import MediaDRMTDF

@Suite("TDF policy model")
struct TDFPolicyTests {
    static let appendixBefore = #"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://patreon.arkavo.com/attr/campaign-tier/value/13167240_24457368"}],"dissem":[]},"uuid":"3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"}"#

    @Test("writes the fps-v2 Appendix A policy byte for byte (sorted, compact)")
    func writesAppendixPolicy() throws {
        let policy = TDFPolicy(
            uuid: "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b",
            dataAttributes: ["https://patreon.arkavo.com/attr/campaign-tier/value/13167240_24457368"],
            classification: .object(JSONObject([("v", .number(JSONNumber(1))), ("filter", .string("passed")), ("flagged", .array([]))])))
        #expect(String(decoding: policy.jsonData(), as: UTF8.self) == Self.appendixBefore)
        #expect(policy.base64 == Base64.encode(Data(Self.appendixBefore.utf8)))
    }

    @Test("parses extension members and keeps unknown ones")
    func parsesExtensions() throws {
        let text = #"{"uuid":"u","body":{"dataAttributes":[{"attribute":"a","displayName":"x"}],"dissem":["d@example.com"],"kid":"k"},"arkavo:components":[{"id":"video","kind":"video","keyBinding":"kb"}],"arkavo:classification":{"v":1},"arkavo:media":{"maxConcurrentStreams":2},"other":true}"#
        let policy = try TDFPolicy(parsing: Data(text.utf8))
        #expect(policy.uuid == "u")
        #expect(policy.body.dataAttributes == [.init(attribute: "a")])
        #expect(policy.body.dissem == ["d@example.com"])
        #expect(policy.body.additionalMembers["kid"] == .string("k"))
        #expect(policy.components?.entries == [.init(id: "video", kind: "video", keyBinding: "kb")])
        #expect(policy.classification == .object(JSONObject([("v", .number(JSONNumber(1)))])))
        #expect(policy.media?.object?["maxConcurrentStreams"] == .number(JSONNumber(2)))
        #expect(policy.additionalMembers["other"] == .bool(true))
        #expect(try TDFPolicy(parsing: policy.jsonData()) == policy)
    }

    @Test("any well-formed arkavo:components is kept as written: a generic TDF is not a media package")
    func unusualComponents() throws {
        let text = #"{"uuid":"u","body":{},"arkavo:components":[{"id":"audio","kind":"audio","keyBinding":"a"},{"id":"i","kind":"image","keyBinding":"b","lang":"en"}]}"#
        let policy = try TDFPolicy(parsing: Data(text.utf8))
        let list = try #require(policy.components)
        #expect(list.entries.map(\.kind) == ["audio", "image"])
        #expect(list.entries[1].additionalMembers["lang"] == .string("en"))
        #expect(try TDFPolicy(parsing: policy.jsonData()) == policy)
        // Only media admission takes the version 2 shape.
        #expect(throws: MediaComponentListError.self) { _ = try MediaComponentList(version2: list.jsonValue) }
        #expect(try TDFPolicy(parsing: Data(#"{"uuid":"u","body":{},"arkavo:components":[]}"#.utf8)).components?.entries == [])
    }

    @Test("null arrays (Go and Python writers) read as empty")
    func nullArrays() throws {
        let policy = try TDFPolicy(parsing: Data(#"{"uuid":"u","body":{"dataAttributes":null,"dissem":null}}"#.utf8))
        #expect(policy.body.dataAttributes.isEmpty && policy.body.dissem.isEmpty)
    }

    static let malformed = [
        #"{"body":{}}"#,
        #"{"uuid":1,"body":{}}"#,
        #"{"uuid":"u"}"#,
        #"{"uuid":"u","body":[]}"#,
        #"{"uuid":"u","body":{"dataAttributes":[{"name":"a"}]}}"#,
        #"{"uuid":"u","body":{"dataAttributes":["a"]}}"#,
        #"{"uuid":"u","body":{"dissem":[1]}}"#,
        #"{"uuid":"u","body":{},"uuid":"v"}"#,
        #"{"uuid":"u","body":{},"arkavo:components":{}}"#,
        #"{"uuid":"u","body":{},"arkavo:components":[{"id":"video","kind":"video"}]}"#,
        #"["uuid"]"#,
    ]

    @Test("malformed policies are refused", arguments: malformed)
    func malformedPolicy(text: String) {
        #expect(throws: TDFError(.malformedPolicy, "")) { try TDFPolicy(parsing: Data(text.utf8)) }
    }

    @Test("every prefix of a policy fails with a typed error")
    func truncation() {
        let bytes = Array(Self.appendixBefore.utf8)
        for length in 0..<bytes.count {
            #expect(throws: TDFError(.malformedPolicy, "")) { try TDFPolicy(parsing: bytes[0..<length]) }
        }
    }

    @Test("policy base64 must be canonical")
    func canonicalBase64() {
        let good = Base64.encode(Data(#"{"uuid":"u","body":{}}"#.utf8))
        #expect((try? TDFPolicy(base64: good)) != nil)
        #expect(throws: TDFError(.malformedPolicy, "")) { try TDFPolicy(base64: String(good.dropLast())) }
        #expect(throws: TDFError(.malformedPolicy, "")) { try TDFPolicy(base64: " " + good) }
    }
}
