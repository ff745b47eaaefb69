import Foundation
import Testing
@testable import MediaDRMJSON

private func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

@Suite struct JSONSpansTests {
    /// For every value of the document, the reported range slices exactly its source bytes: the
    /// slice parses to the same value and carries no surrounding whitespace.
    @Test(arguments: [manifestText, manifestWhitespaceText, "[" + validDocuments.map(\.0).joined(separator: ",") + "]"])
    func everySpanSlicesItsValue(document: String) throws {
        let bytes = Array(document.utf8)
        let (value, spans) = try JSONParser.parseWithSpans(bytes)
        #expect(value == (try JSONParser.parse(bytes)))
        let paths = allPaths(value)
        #expect(spans.count == paths.count)
        for (path, expected) in paths {
            let range = try #require(spans.range(of: path), "no span for \(path)")
            let slice = Array(bytes[range])
            #expect(!slice.isEmpty)
            if let first = slice.first, let last = slice.last {
                #expect(!isWhitespace(first) && !isWhitespace(last))
            }
            #expect(try JSONParser.parse(slice) == expected, "\(path)")
        }
    }

    @Test func compactSpansAreTheExactText() throws {
        let bytes = Array(manifestText.utf8)
        let (_, spans) = try JSONParser.parseWithSpans(bytes)
        func text(_ path: [JSONPathComponent]) throws -> String {
            let range = try #require(spans.range(of: path))
            return String(decoding: bytes[range], as: UTF8.self)
        }
        #expect(try text(["encryptionInformation", "policy"]) == #""eyJ1dWlkIjoiNjFlZDNjNjctYTc2ZS00YjQ2LWEwNDgtNTEyZjI1MmVhMjk4In0=""#)
        #expect(try text(["encryptionInformation", "keyAccess", 0, "policyBinding"]) == #"{"alg":"HS256","hash":"ZmFrZS1iaW5kaW5n"}"#)
        #expect(try text(["encryptionInformation", "keyAccess", 1, "url"]) == #""https:\/\/kas2.example.com\/kas""#)
        #expect(try text(["meta", "title"]) == #""Caf\u00e9 \u2014 \"live\" \ud83c\udfac""#)
        #expect(try text(["meta", "scale"]) == "1.5e-3")
        #expect(try text(["meta", "tags", 2]) == "null")
        #expect(try text(["meta", "empty"]) == "{}")
        #expect(try text(["assertions"]) == "[]")
        #expect(try text([]) == manifestText)
        #expect(spans.range(of: ["meta", "missing"]) == nil)
        #expect(spans.range(of: ["meta", "tags", 4]) == nil)
        #expect(spans.range(of: ["meta", .index(0)]) == nil)
    }

    @Test func whitespaceHeavySpans() throws {
        let text = "\r\n { \"a\" :\t[ 1 ,\n\t{ \"b\" : \"x y\" } ,[ ] ] ,\n\"c\":-1.5e+2 }\t\n"
        let bytes = Array(text.utf8)
        let (value, spans) = try JSONParser.parseWithSpans(bytes)
        #expect(value == ["a": [1, ["b": "x y"], []], "c": .number(num("-1.5e+2"))])
        func slice(_ path: [JSONPathComponent]) throws -> String {
            let range = try #require(spans.range(of: path))
            return String(decoding: bytes[range], as: UTF8.self)
        }
        #expect(try slice([]) == "{ \"a\" :\t[ 1 ,\n\t{ \"b\" : \"x y\" } ,[ ] ] ,\n\"c\":-1.5e+2 }")
        #expect(try slice(["a"]) == "[ 1 ,\n\t{ \"b\" : \"x y\" } ,[ ] ]")
        #expect(try slice(["a", 0]) == "1")
        #expect(try slice(["a", 1]) == "{ \"b\" : \"x y\" }")
        #expect(try slice(["a", 1, "b"]) == "\"x y\"")
        #expect(try slice(["a", 2]) == "[ ]")
        #expect(try slice(["c"]) == "-1.5e+2")
        #expect(try #require(spans.range(of: [])) == 3..<(bytes.count - 2))
    }

    @Test func scalarDocumentSpan() throws {
        let (value, spans) = try JSONParser.parseWithSpans(Array("  \"s\"  ".utf8))
        #expect(value == "s")
        #expect(spans.range(of: []) == 2..<5)
        #expect(spans.count == 1)
    }

    @Test func keysWithEscapesAreFoundByTheirUnescapedValue() throws {
        let bytes = Array(#"{"k\u00e9y":{"\/":true}}"#.utf8)
        let (_, spans) = try JSONParser.parseWithSpans(bytes)
        let range = try #require(spans.range(of: ["kéy", "/"]))
        #expect(String(decoding: bytes[range], as: UTF8.self) == "true")
    }
}
