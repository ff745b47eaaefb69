// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import Foundation
import MediaDRMMedia
import Testing
@testable import MediaDRMTDF

@Suite("arkavo:components insertion (fps-v2 §5.3)")
struct PolicyComponentsInsertionTests {
    static let video = MediaComponentList.Entry(kind: .video, key: TDFBindingTests.videoKey)
    static let audio = MediaComponentList.Entry(kind: .audio, key: TDFBindingTests.audioKey)
    static let videoJSON = #"{"id":"video","kind":"video","keyBinding":"9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4="}"#
    static let audioJSON = #"{"id":"audio","kind":"audio","keyBinding":"rVO1aH+bdtNnKvDGX38OaorFTRMJsPMGbMJNGKKLU3Q="}"#

    /// Checks output = original[..<cut] + insertion + original[cut...] for the cut right after
    /// the opening brace: no byte of the original is changed, dropped or moved.
    private func expectPreserved(_ original: String, _ output: Data, insertion: String) throws {
        let originalBytes = Array(original.utf8)
        let cut = try #require(originalBytes.firstIndex(of: UInt8(ascii: "{"))) + 1
        let expected = Array(originalBytes[..<cut]) + Array(insertion.utf8) + Array(originalBytes[cut...])
        #expect(Array(output) == expected)
        // And removing the inserted bytes gives back the original exactly.
        var remaining = Array(output)
        remaining.removeSubrange(cut..<(cut + insertion.utf8.count))
        #expect(remaining == originalBytes)
    }

    @Test("Appendix A.1: video and audio")
    func appendixBoth() throws {
        let output = try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video, Self.audio]), intoPolicyJSON: Data(TDFPolicyTests.appendixBefore.utf8))
        let after = #"{"arkavo:components":["# + Self.videoJSON + "," + Self.audioJSON + "],"
            + String(TDFPolicyTests.appendixBefore.dropFirst())
        #expect(String(decoding: output, as: UTF8.self) == after)
        try expectPreserved(TDFPolicyTests.appendixBefore, output,
                            insertion: #""arkavo:components":["# + Self.videoJSON + "," + Self.audioJSON + "],")
        // The result parses, with the components typed.
        #expect(try TDFPolicy(parsing: output).components?.entries == [Self.video, Self.audio])
    }

    @Test("Appendix A.2: video only, and its binding")
    func appendixVideoOnly() throws {
        let output = try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video]), intoPolicyJSON: Data(TDFPolicyTests.appendixBefore.utf8))
        try expectPreserved(TDFPolicyTests.appendixBefore, output, insertion: #""arkavo:components":["# + Self.videoJSON + "],")
        #expect(TDFBinding.policyBinding(policyBase64: output.base64EncodedString(), key: TDFBindingTests.videoKey, form: .raw)
                == "gzj4O10aZXXETOaFvB+qGPqBV48CYTEtDdPXk8azn8o=")
    }

    static let spaced = [
        "{ \"uuid\" : \"u\" ,\n  \"body\" : { \"dataAttributes\" : [ ] } }",
        "  \t\n{\n\t\"body\":{},\"uuid\":\"\\u0075\",\"n\":1.50e+2}\n ",
        "{\r\n\"b\\/ody\":{}, \"uuid\":\"é\"}",
    ]

    @Test("whitespace, escapes and number spellings survive untouched", arguments: spaced)
    func whitespace(original: String) throws {
        let output = try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video]), intoPolicyJSON: Data(original.utf8))
        try expectPreserved(original, output, insertion: #""arkavo:components":["# + Self.videoJSON + "],")
    }

    @Test("an empty object gets no comma", arguments: ["{}", "{ }", " {\n} "])
    func emptyObject(original: String) throws {
        let output = try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video]), intoPolicyJSON: Data(original.utf8))
        try expectPreserved(original, output, insertion: #""arkavo:components":["# + Self.videoJSON + "]")
    }

    @Test("an empty body object stays empty")
    func emptyBody() throws {
        let original = #"{"body":{},"uuid":"u"}"#
        let output = try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.audio]), intoPolicyJSON: Data(original.utf8))
        #expect(String(decoding: output, as: UTF8.self) == #"{"arkavo:components":["# + Self.audioJSON + #"],"body":{},"uuid":"u"}"#)
    }

    @Test("refusals: existing list, not an object, invalid JSON, empty list")
    func refusals() {
        #expect(throws: TDFError(.invalidArgument, "")) {
            try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video]), intoPolicyJSON: Data(#"{"uuid":"u","arkavo:components":[]}"#.utf8))
        }
        #expect(throws: TDFError(.malformedPolicy, "")) { try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video]), intoPolicyJSON: Data("[1]".utf8)) }
        #expect(throws: TDFError(.malformedPolicy, "")) { try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video]), intoPolicyJSON: Data(#"{"a":1,"a":2}"#.utf8)) }
        #expect(throws: TDFError(.malformedPolicy, "")) { try TDFPolicy.insertComponents(MediaComponentList(entries: [Self.video]), intoPolicyJSON: Data("{".utf8)) }
        #expect(throws: TDFError(.invalidArgument, "")) { try TDFPolicy.insertComponents(MediaComponentList(entries: []), intoPolicyJSON: Data("{}".utf8)) }
    }
}
