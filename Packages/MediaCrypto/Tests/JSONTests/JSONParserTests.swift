import Foundation
import Testing
@testable import MediaDRMJSON

private func parse(_ text: String, limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), limits: limits)
}

/// Valid documents and the value each must give.
let validDocuments: [(String, JSONValue)] = [
    ("null", .null),
    ("true", true),
    ("false", false),
    ("0", .number(num("0"))),
    ("-0", .number(num("-0"))),
    ("1", 1),
    ("-1", -1),
    ("9223372036854775807", .number(num("9223372036854775807"))),
    ("123456789012345678901234567890", .number(num("123456789012345678901234567890"))),
    ("1.5", .number(num("1.5"))),
    ("1.50", .number(num("1.50"))),
    ("-0.0", .number(num("-0.0"))),
    ("1e5", .number(num("1e5"))),
    ("1E+5", .number(num("1E+5"))),
    ("1e-05", .number(num("1e-05"))),
    ("0.1e-2", .number(num("0.1e-2"))),
    ("-12.75E3", .number(num("-12.75E3"))),
    (" \t\n\r1 \n\t\r", 1),
    ("\"\"", ""),
    ("\"abc\"", "abc"),
    (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
    (#""\u0041\u0062""#, "Ab"),
    (#""\u00e9\u00E9""#, "éé"),
    (#""\u20AC""#, "€"),
    (#""\uD83D\uDE00""#, "😀"),
    (#""\ud83d\ude00""#, "😀"),
    (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
    (#""\u0000""#, "\u{0}"),
    (#""\u001f""#, "\u{1F}"),
    (#""\u2028\u2029""#, "\u{2028}\u{2029}"),
    ("\"\u{7F}\"", "\u{7F}"),
    ("\"é€😀\u{10FFFF}\"", "é€😀\u{10FFFF}"),
    ("\"a/b\"", "a/b"),
    (#""x\\u0041""#, "x\\u0041"),
    ("[]", []),
    ("{}", .object(JSONObject())),
    ("[[]]", [[]]),
    ("[{}]", [.object(JSONObject())]),
    ("[1,[2,[3]]]", [1, [2, [3]]]),
    ("[1,\"a\",true,false,null,1.5]", [1, "a", true, false, nil, .number(num("1.5"))]),
    ("{\"a\":{\"b\":[true,null]}}", ["a": ["b": [true, nil]]]),
    ("{\"a\":1,\"A\":2}", ["a": 1, "A": 2]),
    ("{\"\":0}", ["": 0]),
    ("{\"a\\u0000\":0,\"a\":1}", ["a\u{0}": 0, "a": 1]),
    ("{ \"a\" : [ 1 , 2 ] , \"b\" : { } }", ["a": [1, 2], "b": .object(JSONObject())]),
    ("{\"a\":\"x\",\"b\":\"y\"}", ["b": "y", "a": "x"]),
    ("[\"\\\"\"]", ["\""]),
    ("{\"k\\u00e9y\":\"v\\nw\"}", ["kéy": "v\nw"]),
]

/// Invalid documents (as bytes) and the error code each must give.
let invalidDocuments: [(String, [UInt8], JSONError.Code)] = {
    func t(_ text: String, _ code: JSONError.Code) -> (String, [UInt8], JSONError.Code) { (text, Array(text.utf8), code) }
    func b(_ name: String, _ bytes: [UInt8], _ code: JSONError.Code) -> (String, [UInt8], JSONError.Code) { (name, bytes, code) }
    let q: UInt8 = 0x22
    return [
        // Numbers.
        t("01", .invalidNumber), t("-01", .invalidNumber), t("[00]", .invalidNumber), t("[01]", .invalidNumber),
        t("+1", .invalidNumber), t("[+1]", .invalidNumber),
        t("1.", .invalidNumber), t("[1.]", .invalidNumber), t("1.e5", .invalidNumber),
        t(".5", .invalidNumber), t("[-.5]", .invalidNumber),
        t("1e", .invalidNumber), t("1e+", .invalidNumber), t("1E-", .invalidNumber), t("-", .invalidNumber),
        t("--1", .invalidNumber), t("1.5e", .invalidNumber), t("1.2.3", .invalidNumber), t("1e5e5", .invalidNumber),
        t("-Infinity", .invalidNumber), t("- 1", .invalidNumber),
        t("NaN", .unexpectedCharacter), t("Infinity", .unexpectedCharacter), t("[nan]", .unexpectedCharacter),
        t("0x10", .trailingData),
        // Structure.
        t("[1,]", .unexpectedCharacter), t("{\"a\":1,}", .unexpectedCharacter), t("[,1]", .unexpectedCharacter),
        t("[1,,2]", .unexpectedCharacter), t("[1 2]", .unexpectedCharacter), t("{\"a\" 1}", .unexpectedCharacter),
        t("{1:2}", .unexpectedCharacter), t("{\"a\":}", .unexpectedCharacter), t("{\"a\",1}", .unexpectedCharacter),
        t("{a:1}", .unexpectedCharacter), t("[}", .unexpectedCharacter), t("{]", .unexpectedCharacter),
        t("{\"a\":1]", .unexpectedCharacter), t("[1}", .unexpectedCharacter),
        t("'a'", .unexpectedCharacter), t("{'a':1}", .unexpectedCharacter), t("[\"a',1]", .truncated),
        t("trUe", .unexpectedCharacter), t("nul1", .unexpectedCharacter), t("True", .unexpectedCharacter),
        t("undefined", .unexpectedCharacter), t("/*c*/1", .unexpectedCharacter), t("\u{0B}1", .unexpectedCharacter),
        t("\u{A0}1", .unexpectedCharacter), t("\u{FEFF}{}", .unexpectedCharacter),
        // Strings: control characters.
        t("\"a\u{01}\"", .invalidString), t("\"\t\"", .invalidString), t("\"\n\"", .invalidString),
        t("\"\r\"", .invalidString), t("\"\u{1F}\"", .invalidString), t("\"\u{0}\"", .invalidString),
        t("{\"k\u{0}\":1}", .invalidString),
        // Strings: escapes.
        t(#""\x""#, .invalidEscape), t(#""\'""#, .invalidEscape), t(#""\ ""#, .invalidEscape),
        t(#""\U0041""#, .invalidEscape), t(#""\u12""#, .invalidEscape), t(#""\u12G4""#, .invalidEscape),
        t(#""\u-123""#, .invalidEscape), t(#""\a""#, .invalidEscape), t(#""\0""#, .invalidEscape),
        t("\"\\\u{E9}\"", .invalidEscape),
        // Strings: lone surrogates.
        t(#""\uD800""#, .invalidEscape), t(#""\uDBFF""#, .invalidEscape), t(#""\uDC00""#, .invalidEscape),
        t(#""\uDFFF""#, .invalidEscape), t(#""\uD800\u0041""#, .invalidEscape), t(#""\uD800x""#, .invalidEscape),
        t(#""\uDBFF\uDBFF""#, .invalidEscape), t(#""\uD800\n""#, .invalidEscape), t(#""\uDE00\uD83D""#, .invalidEscape),
        t(#"{"\uD800":1}"#, .invalidEscape),
        // Strings: invalid UTF-8.
        b("overlong '/' C0 AF", [q, 0xC0, 0xAF, q], .invalidUTF8),
        b("overlong C1 BF", [q, 0xC1, 0xBF, q], .invalidUTF8),
        b("overlong 3-byte E0 80 AF", [q, 0xE0, 0x80, 0xAF, q], .invalidUTF8),
        b("overlong 3-byte E0 9F BF", [q, 0xE0, 0x9F, 0xBF, q], .invalidUTF8),
        b("overlong 4-byte F0 80 80 AF", [q, 0xF0, 0x80, 0x80, 0xAF, q], .invalidUTF8),
        b("overlong 4-byte F0 8F BF BF", [q, 0xF0, 0x8F, 0xBF, 0xBF, q], .invalidUTF8),
        b("UTF-8 encoded surrogate D800", [q, 0xED, 0xA0, 0x80, q], .invalidUTF8),
        b("UTF-8 encoded surrogate DFFF", [q, 0xED, 0xBF, 0xBF, q], .invalidUTF8),
        b("UTF-8 encoded surrogate pair", [q, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, q], .invalidUTF8),
        b("above U+10FFFF F4 90", [q, 0xF4, 0x90, 0x80, 0x80, q], .invalidUTF8),
        b("lead F5", [q, 0xF5, 0x80, 0x80, 0x80, q], .invalidUTF8),
        b("lead F8", [q, 0xF8, 0x88, 0x80, 0x80, 0x80, q], .invalidUTF8),
        b("lead FE", [q, 0xFE, q], .invalidUTF8),
        b("lead FF", [q, 0xFF, q], .invalidUTF8),
        b("lone continuation 80", [q, 0x80, q], .invalidUTF8),
        b("lone continuation BF", [q, 0x61, 0xBF, q], .invalidUTF8),
        b("missing continuation C3", [q, 0xC3, q], .invalidUTF8),
        b("missing continuation E2 82", [q, 0xE2, 0x82, q], .invalidUTF8),
        b("missing continuation F0 9F 98", [q, 0xF0, 0x9F, 0x98, q], .invalidUTF8),
        b("ASCII as continuation", [q, 0xC3, 0x41, q], .invalidUTF8),
        b("invalid UTF-8 in a key", Array("{\"".utf8) + [0xC0, 0x80] + Array("\":1}".utf8), .invalidUTF8),
        b("UTF-8 outside strings", [0xC3, 0xA9], .unexpectedCharacter),
        // Duplicate keys, compared after unescaping, at depths 0, 1 and 5.
        t(#"{"a":1,"a":2}"#, .duplicateKey),
        t(#"{"a":1,"a":1}"#, .duplicateKey),
        t(#"{"a":1,"b":2,"a":{}}"#, .duplicateKey),
        t(#"{"a":1,"\u0061":2}"#, .duplicateKey),
        t(#"{"\u0061":1,"a":2}"#, .duplicateKey),
        t(#"{"é":1,"\u00e9":2}"#, .duplicateKey),
        t(#"{"😀":1,"\ud83d\ude00":2}"#, .duplicateKey),
        t("{\"\u{E9}\":1,\"e\u{301}\":2}", .duplicateKey),
        t(#"{"x":{"a":1,"a":2}}"#, .duplicateKey),
        t(#"{"x":{"k":1,"\u006b":2}}"#, .duplicateKey),
        t(#"[{"a":1,"a":2}]"#, .duplicateKey),
        t(#"{"1":{"2":{"3":{"4":{"5":{"a":1,"a":2}}}}}}"#, .duplicateKey),
        t(#"{"1":{"2":{"3":{"4":{"5":{"a":1,"\u0061":2}}}}}}"#, .duplicateKey),
        t(#"[[[[[{"a":1,"\u0061":2}]]]]]"#, .duplicateKey),
        t(#"{"":1,"":2}"#, .duplicateKey),
        // Trailing data.
        t("{} {}", .trailingData), t("1 2", .trailingData), t("[]]", .trailingData), t("nullx", .trailingData),
        t("true false", .trailingData), t("\"a\"\"b\"", .trailingData), t("[1]//c", .trailingData),
        t("{}\u{0}", .trailingData), t("0 ,", .trailingData),
        // Truncation.
        t("", .truncated), t("   ", .truncated), t("[", .truncated), t("{", .truncated), t("{\"a\"", .truncated),
        t("{\"a\":", .truncated), t("{\"a\":1", .truncated), t("[1,", .truncated), t("\"abc", .truncated),
        t("tru", .truncated), t("nul", .truncated), t("\"\\", .truncated), t("\"\\u00", .truncated),
        t(#""\uD83D"#, .truncated), t(#""\uD83D\"#, .truncated), b("cut 4-byte", [q, 0xF0, 0x9F], .truncated),
        // Limits.
        t(String(repeating: "[", count: 65) + String(repeating: "]", count: 65), .tooDeep),
        t(String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65), .tooDeep),
        t(String(repeating: "[", count: 100_000), .tooDeep),
    ]
}()

@Suite struct JSONParserTests {
    @Test(arguments: validDocuments)
    func validDocument(text: String, expected: JSONValue) throws {
        let value = try parse(text)
        #expect(value == expected)
        #expect(try JSONParser.parse(Data(text.utf8)) == expected)
    }

    @Test(arguments: invalidDocuments)
    func invalidDocument(name: String, bytes: [UInt8], code: JSONError.Code) {
        do {
            let value = try JSONParser.parse(bytes)
            Issue.record("\(name) parsed as \(value)")
        } catch {
            #expect(error.code == code, "\(name): \(error)")
            #expect(error.offset != nil)
            if let offset = error.offset {
                #expect(offset >= 0 && offset <= bytes.count)
            }
        }
    }

    @Test func exactNumberTextIsKept() throws {
        let value = try parse("[1.50,-0,1E+05,12345678901234567890123]")
        let texts = try #require(value.array).compactMap { $0.number?.text }
        #expect(texts == ["1.50", "-0", "1E+05", "12345678901234567890123"])
    }

    @Test func depthLimitIsExact() throws {
        let limits = JSONLimits()
        let deepest = String(repeating: "[", count: limits.maxDepth) + String(repeating: "]", count: limits.maxDepth)
        var value = try parse(deepest)
        for _ in 1..<limits.maxDepth {
            value = try #require(value.array?.first)
        }
        #expect(value == [])

        var tight = JSONLimits()
        tight.maxDepth = 2
        #expect(try parse("[[1]]", limits: tight) == [[1]])
        #expect(try parse("{\"a\":[1]}", limits: tight) == ["a": [1]])
        #expect(throws: JSONError(.tooDeep, "")) { try parse("[[[1]]]", limits: tight) }
        #expect(throws: JSONError(.tooDeep, "")) { try parse("[{\"a\":[]}]", limits: tight) }
        tight.maxDepth = 0
        #expect(try parse("7", limits: tight) == 7)
        #expect(throws: JSONError(.tooDeep, "")) { try parse("[]", limits: tight) }
    }

    @Test func deepNestingThrowsTooDeepWithoutOverflow() {
        for opener in ["[", "{\"a\":", "[{\"a\":"] {
            let text = String(repeating: opener, count: 100_000)
            #expect(throws: JSONError(.tooDeep, "")) { try parse(text) }
        }
        // A raised limit is handled by the explicit stack, not recursion.
        var raised = JSONLimits()
        raised.maxDepth = 100_000
        let unterminated = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError(.truncated, "")) { try parse(unterminated, limits: raised) }
        let closedWrongly = String(repeating: "[", count: 100_000) + "}"
        #expect(throws: JSONError(.unexpectedCharacter, "")) { try parse(closedWrongly, limits: raised) }
    }

    @Test func sizeLimits() throws {
        var limits = JSONLimits()
        limits.maxBytes = 10
        #expect(try parse("[1,2,3,45]", limits: limits) == [1, 2, 3, 45])
        #expect(throws: JSONError(.tooLarge, "")) { try parse("[1,2,3,456]", limits: limits) }
        #expect(throws: JSONError(.tooLarge, "")) { try JSONParser.parseWithSpans(Array("[1,2,3,456]".utf8), limits: limits) }

        limits = JSONLimits()
        limits.maxStringBytes = 4
        #expect(try parse("[\"abcd\",\"\\u00e9\\u00e9\"]", limits: limits) == ["abcd", "éé"])
        #expect(throws: JSONError(.tooLarge, "")) { try parse("\"abcde\"", limits: limits) }
        #expect(throws: JSONError(.tooLarge, "")) { try parse("\"\\u00e9\\u00e9a\"", limits: limits) }
        #expect(throws: JSONError(.tooLarge, "")) { try parse("{\"abcde\":1}", limits: limits) }
        #expect(throws: JSONError(.tooLarge, "")) { try parse("123456", limits: limits) }

        limits = JSONLimits()
        limits.maxMembers = 3
        #expect(try parse("[1,2,3]", limits: limits) == [1, 2, 3])
        #expect(try parse("{\"a\":1,\"b\":2,\"c\":3}", limits: limits) == ["a": 1, "b": 2, "c": 3])
        #expect(throws: JSONError(.tooLarge, "")) { try parse("[1,2,3,4]", limits: limits) }
        #expect(throws: JSONError(.tooLarge, "")) { try parse("{\"a\":1,\"b\":2,\"c\":3,\"d\":4}", limits: limits) }
        #expect(throws: JSONError(.tooLarge, "")) { try parse("[[1,2,3,4]]", limits: limits) }
    }

    @Test func memberOrderIsKept() throws {
        let object = try #require(try parse(#"{"z":1,"a":2,"m":3}"#).object)
        #expect(object.keys == ["z", "a", "m"])
        #expect(object.map(\.key) == ["z", "a", "m"])
    }

    @Test func errorOffsetsPointAtTheProblem() {
        func offset(_ text: String) -> Int? {
            do { _ = try parse(text); return nil } catch { return error.offset }
        }
        #expect(offset("[1,]") == 3)
        #expect(offset(#"{"a":1,"a":2}"#) == 7)
        #expect(offset("[1] x") == 4)
        #expect(offset("\"ab\u{1}\"") == 3)
    }

    @Test func duplicateKeyReasonNamesTheKeyButTruncatesLongOnes() {
        let long = String(repeating: "k", count: 500)
        do {
            _ = try parse("{\"\(long)\":1,\"\(long)\":2}")
            Issue.record("duplicate accepted")
        } catch {
            #expect(error.code == .duplicateKey)
            #expect(error.reason.contains("kkkk"))
            #expect(error.reason.utf8.count < 200)
        }
    }

    @Test func manifestParses() throws {
        let value = try parse(manifestText)
        let root = try #require(value.object)
        let meta = try root.requireObject("meta")
        #expect(try meta.requireString("title") == "Café — \"live\" 🎬")
        #expect(try meta.requireString("title") == meta.requireString("titleRaw").replacingOccurrences(of: "Café — ", with: "Café — \"live\" "))
        #expect(try meta.requireInt64("offset") == -12)
        #expect(try meta.requireNumber("big").text == "12345678901234567890")
        #expect(try meta.requireNumber("big").int64 == nil)
        #expect(try meta.requireNumber("big").uint64 == 12345678901234567890)
        let keyAccess = try root.requireObject("encryptionInformation").requireArray("keyAccess")
        #expect(keyAccess.count == 2)
        #expect(try keyAccess[1].requireObject("kao").requireString("url") == "https://kas2.example.com/kas")
        #expect(try parse(manifestWhitespaceText) == value)
    }

    /// EVERY prefix of a valid document throws JSONError and never traps.
    @Test(arguments: [manifestText, manifestWhitespaceText])
    func everyPrefixThrows(document: String) throws {
        let bytes = Array(document.utf8)
        _ = try JSONParser.parse(bytes)
        // Trailing whitespace may go; every cut into the document itself must fail.
        let end = try #require(bytes.lastIndex(of: UInt8(ascii: "}")))
        for length in 0...end {
            let prefix = Array(bytes[0..<length])
            #expect(throws: JSONError.self) { try JSONParser.parse(prefix) }
            #expect(throws: JSONError.self) { try JSONParser.parseWithSpans(prefix) }
        }
    }

    /// Corrupted documents either parse or throw JSONError; whatever we accept, Foundation accepts
    /// with the same value.
    @Test func mutatedDocumentsNeverTrap() throws {
        var generator = SystemRandomNumberGenerator()
        let original = Array(manifestText.utf8)
        let interesting: [UInt8] = Array("{}[]\",:\\u0eE.-+ \t\n".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = interesting.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: position)
                default: bytes.insert(interesting.randomElement(using: &generator) ?? 0, at: position)
                }
            }
            // Typed throws: the only thing parse can throw is JSONError; a trap would end the run.
            guard let value = try? JSONParser.parse(bytes) else { continue }
            accepted += 1
            // Foundation may refuse a number beyond Double's range that we keep as text.
            if let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) {
                #expect(matchesFoundation(value, theirs))
            } else {
                #expect(allPaths(value).contains { $0.1.number != nil && $0.1.double == nil })
            }
        }
        #expect(accepted < 3000)
    }

    /// Valid documents give the same values as Foundation's JSONSerialization.
    @Test(arguments: validDocuments.map(\.0) + [manifestText, manifestWhitespaceText])
    func agreesWithFoundation(text: String) throws {
        let ours = try parse(text)
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(matchesFoundation(ours, theirs))
    }

    @Test func parsesFromNonArrayCollections() throws {
        let text = #"{"a":[1,2]}"#
        #expect(try JSONParser.parse(Data(text.utf8)) == ["a": [1, 2]])
        #expect(try JSONParser.parse(Array(text.utf8)[...]) == ["a": [1, 2]])
    }
}
