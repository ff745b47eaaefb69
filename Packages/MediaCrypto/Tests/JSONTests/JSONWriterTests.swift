import Foundation
import Testing
@testable import MediaDRMJSON

private func written(_ value: JSONValue, _ options: JSONWriter.Options = [.sortedKeys]) -> String {
    String(decoding: JSONWriter.write(value, options: options), as: UTF8.self)
}

let writerValues: [JSONValue] = [
    nil, true, false, 0, -1, 42, .number(num("-0")), .number(num("1.50")), .number(num("1E+400")),
    .number(JSONNumber(Int64.min)), .number(JSONNumber(UInt64.max)), 0.1, -2.5e-8, 1e300,
    "", "plain", "quote \" backslash \\ slash /", "\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F}",
    "é€😀\u{10FFFF}\u{2028}", "e\u{301}",
    [], [[]], [1, "two", [3, [4, nil]], ["k": false]],
    ["b": 1, "a": 2, "B": 3, "": 4], ["nested": ["deeper": ["deepest": [1, 2, 3]]], "x": "y"],
    .object(JSONObject()), ["é": 1, "e\u{301}x": 2, "\u{FFFF}": 3, "\u{10000}": 4],
]

@Suite struct JSONWriterTests {
    @Test(arguments: writerValues)
    func roundTrip(value: JSONValue) throws {
        for options: JSONWriter.Options in [[], [.sortedKeys], [.prettyPrinted], [.sortedKeys, .prettyPrinted], [.withoutEscapingSlashes]] {
            let data = JSONWriter.write(value, options: options)
            #expect(try JSONParser.parse(data) == value)
            let (_, spans) = try JSONParser.parseWithSpans(Array(data))
            #expect(spans.range(of: []) == 0..<data.count)
        }
    }

    /// A number beyond Double is kept as exact text, which Foundation refuses: those values are
    /// left out of the Foundation comparison (`roundTrip` covers them), and only those.
    static let foundationValues = writerValues.filter { value in
        if case .number(let number) = value { return number.double != nil }
        return true
    }

    @Test func onlyNumbersBeyondDoubleAreLeftOutOfTheFoundationComparison() {
        let left = writerValues.filter { !Self.foundationValues.contains($0) }
        #expect(left == [.number(num("1E+400"))])
    }

    @Test(arguments: foundationValues)
    func foundationReadsOurOutput(value: JSONValue) throws {
        let data = JSONWriter.write(value)
        let theirs = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        #expect(matchesFoundation(value, theirs))
    }

    @Test func controlCharactersAreEscapedMinimally() {
        #expect(written("\u{0}") == #""\u0000""#)
        #expect(written("\u{1}") == #""\u0001""#)
        #expect(written("\u{B}") == #""\u000b""#)
        #expect(written("\u{1F}") == #""\u001f""#)
        #expect(written("\u{8}\u{9}\u{A}\u{C}\u{D}") == #""\b\t\n\f\r""#)
        #expect(written("\u{7F}") == "\"\u{7F}\"")
        #expect(written("\"\\") == #""\"\\""#)
        #expect(written("a/b") == #""a/b""#)
        #expect(written("a/b", [.withoutEscapingSlashes]) == #""a/b""#)
        #expect(written("é😀\u{2028}") == "\"é😀\u{2028}\"")
        #expect(Array(JSONWriter.write("é")) == [0x22, 0xC3, 0xA9, 0x22])
    }

    @Test func everyControlCharacterRoundTrips() throws {
        let all = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let text = written(.string(all))
        #expect(!text.utf8.contains { $0 < 0x20 })
        #expect(try JSONParser.parse(Data(text.utf8)) == .string(all))
    }

    @Test func sortedKeysUseUTF8ByteOrder() {
        let object: JSONValue = ["b": 1, "a": 2, "B": 3, "aa": 4, "é": 5, "\u{10000}": 6, "\u{FFFF}": 7, "": 8, "z": 9]
        // UTF-8 order puts U+FFFF (EF BF BF) before U+10000 (F0 90 80 80); UTF-16 order would not.
        #expect(written(object) == "{\"\":8,\"B\":3,\"a\":2,\"aa\":4,\"b\":1,\"z\":9,\"é\":5,\"\u{FFFF}\":7,\"\u{10000}\":6}")
        #expect(written(object, []) == "{\"b\":1,\"a\":2,\"B\":3,\"aa\":4,\"é\":5,\"\u{10000}\":6,\"\u{FFFF}\":7,\"\":8,\"z\":9}")
    }

    @Test func sortingIsDeep() {
        let value: JSONValue = ["z": [["y": 1, "x": 2]], "a": ["d": nil, "c": true]]
        #expect(written(value) == #"{"a":{"c":true,"d":null},"z":[{"x":2,"y":1}]}"#)
    }

    @Test func compactAndPrettyForms() {
        let value: JSONValue = ["b": [1, 2], "a": ["x": "y"], "e": [], "o": .object(JSONObject())]
        #expect(written(value) == #"{"a":{"x":"y"},"b":[1,2],"e":[],"o":{}}"#)
        #expect(written(value, [.sortedKeys, .prettyPrinted]) == """
            {
              "a": {
                "x": "y"
              },
              "b": [
                1,
                2
              ],
              "e": [],
              "o": {}
            }
            """)
    }

    @Test func numbersAreWrittenAsTheirText() throws {
        let parsed = try JSONParser.parse(Data("[1.50,-0,1E+05,12345678901234567890123,0.1]".utf8))
        #expect(written(parsed) == "[1.50,-0,1E+05,12345678901234567890123,0.1]")
        #expect(written([.number(JSONNumber(3.0)), .number(JSONNumber(0.1)), .number(JSONNumber(-2.5e-8)), .number(JSONNumber(1e300))])
            == "[3,0.1,-2.5e-08,1e+300]")
    }

    @Test func reparsedManifestWritesIdentically() throws {
        let value = try JSONParser.parse(Data(manifestText.utf8))
        let once = JSONWriter.write(value)
        let twice = JSONWriter.write(try JSONParser.parse(once))
        #expect(once == twice)
        #expect(JSONWriter.string(value, options: []).utf8.count < manifestText.utf8.count)
    }
}
