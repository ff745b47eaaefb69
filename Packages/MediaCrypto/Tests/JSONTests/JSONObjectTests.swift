import Foundation
import Testing
@testable import MediaDRMJSON

@Suite struct JSONObjectTests {
    private let object: JSONObject = [
        "s": "text", "o": ["k": 1], "a": [1, 2], "b": true, "i": 42, "neg": -7, "f": 1.5, "e": .number(num("1e2")),
        "big": .number(num("9223372036854775808")), "n": nil,
    ]

    @Test func requireReturnsTypedValues() throws {
        #expect(try object.requireString("s") == "text")
        #expect(try object.requireObject("o") == ["k": 1])
        #expect(try object.requireArray("a") == [1, 2])
        #expect(try object.requireBool("b") == true)
        #expect(try object.requireInt64("i") == 42)
        #expect(try object.requireInt64("neg") == -7)
        #expect(try object.requireDouble("f") == 1.5)
        #expect(try object.requireDouble("e") == 100)
        #expect(try object.requireNumber("big").text == "9223372036854775808")
        #expect(try object.requireValue("n") == .null)
    }

    private enum Accessor: String, CaseIterable {
        case string = "s", object = "o", array = "a", bool = "b", int64 = "i"

        func call(_ object: JSONObject, _ key: String) throws(JSONError) {
            switch self {
            case .string: _ = try object.requireString(key)
            case .object: _ = try object.requireObject(key)
            case .array: _ = try object.requireArray(key)
            case .bool: _ = try object.requireBool(key)
            case .int64: _ = try object.requireInt64(key)
            }
        }
    }

    @Test(arguments: ["s", "o", "a", "b", "i", "f", "n"])
    func requireMismatchNamesTheField(key: String) {
        for accessor in Accessor.allCases where accessor.rawValue != key && !(accessor == .int64 && key == "f") {
            do {
                try accessor.call(object, key)
                Issue.record("\(accessor) accessor accepted field \(key)")
            } catch {
                #expect(error.code == .typeMismatch)
                #expect(error.reason.contains("\"\(key)\""))
                #expect(error.offset == nil)
            }
        }
    }

    @Test func int64RefusesFractionsExponentsAndOverflow() {
        #expect(throws: JSONError(.typeMismatch, "")) { try object.requireInt64("f") }
        #expect(throws: JSONError(.typeMismatch, "")) { try object.requireInt64("e") }
        #expect(throws: JSONError(.typeMismatch, "")) { try object.requireInt64("big") }
        #expect(throws: JSONError(.typeMismatch, "")) { try object.requireInt64("s") }
    }

    @Test func missingFieldsAreNamed() {
        for accessor in Accessor.allCases {
            do {
                try accessor.call(object, "absent")
                Issue.record("missing field accepted")
            } catch {
                #expect(error.code == .missingField)
                #expect(error.reason.contains("\"absent\""))
            }
        }
    }

    @Test func optionalAccessors() throws {
        #expect(try object.optionalString("s") == "text")
        #expect(try object.optionalString("absent") == nil)
        #expect(try object.optionalString("n") == nil)
        #expect(try object.optionalObject("o") == ["k": 1])
        #expect(try object.optionalArray("absent") == nil)
        #expect(try object.optionalBool("b") == true)
        #expect(try object.optionalInt64("i") == 42)
        #expect(try object.optionalNumber("f")?.text == "1.5")
        #expect(throws: JSONError(.typeMismatch, "")) { try object.optionalString("i") }
        #expect(throws: JSONError(.typeMismatch, "")) { try object.optionalObject("a") }
        #expect(throws: JSONError(.typeMismatch, "")) { try object.optionalInt64("f") }
    }

    @Test func closedSchema() throws {
        let small: JSONObject = ["a": 1, "b": 2]
        try small.requireOnlyKeys(["a", "b", "c"])
        do {
            try small.requireOnlyKeys(["a"])
            Issue.record("unknown field accepted")
        } catch {
            #expect(error.code == .unknownField)
            #expect(error.reason.contains("\"b\""))
        }
    }

    @Test func valueAccessors() throws {
        let value: JSONValue = ["list": [1, "x"]]
        #expect(value.object?["list"]?.array?.first?.int64 == 1)
        #expect(value.object?["list"]?.array?.last?.string == "x")
        #expect(value.string == nil && value.array == nil && value.bool == nil && value.number == nil)
        #expect(JSONValue.null.isNull)
        #expect(try value.requireObject("root").count == 1)
        #expect(throws: JSONError(.typeMismatch, "")) { try value.requireArray("root") }
        #expect(throws: JSONError(.typeMismatch, "")) { try value.requireString("root") }
    }

    @Test func mutationKeepsOrderAndUniqueness() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = "two"
        #expect(object.keys == ["a", "b", "c"])
        object["d"] = 4
        #expect(object.keys == ["a", "b", "c", "d"])
        object["a"] = nil
        #expect(object.keys == ["b", "c", "d"])
        #expect(object["c"] == 3 && object["d"] == 4 && object["a"] == nil)
        object["absent"] = nil
        #expect(object.count == 3)
        let repeated = JSONObject([("k", 1), ("j", 2), ("k", 3)])
        #expect(repeated.keys == ["k", "j"])
        #expect(repeated["k"] == 3)
    }

    /// Large objects switch from linear search to a hash index; both paths must agree.
    @Test(arguments: [3, 16, 17, 40, 300])
    func lookupAndRemovalAtEverySize(size: Int) {
        var object = JSONObject((0..<size).map { ("k\($0)", JSONValue.number(JSONNumber($0))) })
        #expect(object.count == size)
        for position in 0..<size { #expect(object["k\(position)"]?.int64 == Int64(position)) }
        #expect(object["k\(size)"] == nil)
        object["k1"] = nil
        object["k\(size - 1)"] = nil
        #expect(object["k1"] == nil)
        for position in 0..<size where position != 1 && position != size - 1 {
            #expect(object["k\(position)"]?.int64 == Int64(position))
        }
        object["k1"] = "back"
        #expect(object.keys.last == "k1")
        #expect(object["k1"] == "back")
    }

    @Test(arguments: [5, 16, 17, 100])
    func parserFindsDuplicatesInLargeObjects(size: Int) throws {
        let members = (0..<size).map { "\"k\($0)\":\($0)" }
        let valid = "{" + members.joined(separator: ",") + "}"
        #expect(try JSONParser.parse(Data(valid.utf8)).object?.count == size)
        for duplicate in ["\"k0\"", "\"k\(size - 1)\"", "\"\\u006b\(size / 2)\""] {
            let text = "{" + members.joined(separator: ",") + ",\(duplicate):0}"
            #expect(throws: JSONError(.duplicateKey, "")) { try JSONParser.parse(Data(text.utf8)) }
        }
    }

    @Test func equalityIgnoresMemberOrderButNotValues() {
        let first: JSONValue = ["a": 1, "b": [1, 2]]
        #expect(first == ["b": [1, 2], "a": 1])
        #expect(first != ["a": 1, "b": [2, 1]])
        #expect(first != ["a": 1])
        #expect(first != ["a": 1, "b": [1, 2], "c": nil])
        #expect(JSONValue.number(num("1")) != .number(num("1.0")))
    }
}
