/// Typed member access for schema code. `require*` throws `.missingField` when the key is absent
/// and `.typeMismatch` when its value has another type; `optional*` returns nil when the key is
/// absent or its value is `null`, and throws `.typeMismatch` for any other type. Reasons name the
/// field, never its value.
extension JSONObject {
    public func requireValue(_ key: String) throws(JSONError) -> JSONValue {
        guard let value = self[key] else {
            throw JSONError(.missingField, "missing required field \(JSONError.quoted(key))")
        }
        return value
    }

    public func requireString(_ key: String) throws(JSONError) -> String {
        let value = try requireValue(key)
        guard let string = value.string else { throw mismatch(key, expected: "string", found: value) }
        return string
    }

    public func requireObject(_ key: String) throws(JSONError) -> JSONObject {
        let value = try requireValue(key)
        guard let object = value.object else { throw mismatch(key, expected: "object", found: value) }
        return object
    }

    public func requireArray(_ key: String) throws(JSONError) -> [JSONValue] {
        let value = try requireValue(key)
        guard let array = value.array else { throw mismatch(key, expected: "array", found: value) }
        return array
    }

    public func requireBool(_ key: String) throws(JSONError) -> Bool {
        let value = try requireValue(key)
        guard let bool = value.bool else { throw mismatch(key, expected: "boolean", found: value) }
        return bool
    }

    public func requireNumber(_ key: String) throws(JSONError) -> JSONNumber {
        let value = try requireValue(key)
        guard let number = value.number else { throw mismatch(key, expected: "number", found: value) }
        return number
    }

    /// An integer number (no fraction or exponent) within Int64's range.
    public func requireInt64(_ key: String) throws(JSONError) -> Int64 {
        let value = try requireValue(key)
        guard let int = value.int64 else { throw mismatch(key, expected: "64-bit integer", found: value) }
        return int
    }

    /// A number representable as a finite double.
    public func requireDouble(_ key: String) throws(JSONError) -> Double {
        let value = try requireValue(key)
        guard let double = value.double else { throw mismatch(key, expected: "finite number", found: value) }
        return double
    }

    public func optionalString(_ key: String) throws(JSONError) -> String? {
        guard let value = present(key) else { return nil }
        guard let string = value.string else { throw mismatch(key, expected: "string", found: value) }
        return string
    }

    public func optionalObject(_ key: String) throws(JSONError) -> JSONObject? {
        guard let value = present(key) else { return nil }
        guard let object = value.object else { throw mismatch(key, expected: "object", found: value) }
        return object
    }

    public func optionalArray(_ key: String) throws(JSONError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard let array = value.array else { throw mismatch(key, expected: "array", found: value) }
        return array
    }

    public func optionalBool(_ key: String) throws(JSONError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard let bool = value.bool else { throw mismatch(key, expected: "boolean", found: value) }
        return bool
    }

    public func optionalInt64(_ key: String) throws(JSONError) -> Int64? {
        guard let value = present(key) else { return nil }
        guard let int = value.int64 else { throw mismatch(key, expected: "64-bit integer", found: value) }
        return int
    }

    public func optionalNumber(_ key: String) throws(JSONError) -> JSONNumber? {
        guard let value = present(key) else { return nil }
        guard let number = value.number else { throw mismatch(key, expected: "number", found: value) }
        return number
    }

    /// Closed-schema check: throws `.unknownField` naming the first member whose key is not in
    /// `allowed`.
    public func requireOnlyKeys(_ allowed: Set<String>) throws(JSONError) {
        for (key, _) in members where !allowed.contains(key) {
            throw JSONError(.unknownField, "unexpected field \(JSONError.quoted(key))")
        }
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = self[key], !value.isNull else { return nil }
        return value
    }

    private func mismatch(_ key: String, expected: String, found: JSONValue) -> JSONError {
        JSONError(.typeMismatch, "field \(JSONError.quoted(key)) must be a \(expected), found \(found.kindName)")
    }
}

extension JSONValue {
    /// The object, or `.typeMismatch` naming `what` (for example "manifest").
    public func requireObject(_ what: String) throws(JSONError) -> JSONObject {
        guard let object else { throw JSONError(.typeMismatch, "\(what) must be an object, found \(kindName)") }
        return object
    }

    /// The array, or `.typeMismatch` naming `what`.
    public func requireArray(_ what: String) throws(JSONError) -> [JSONValue] {
        guard let array else { throw JSONError(.typeMismatch, "\(what) must be an array, found \(kindName)") }
        return array
    }

    /// The string, or `.typeMismatch` naming `what`.
    public func requireString(_ what: String) throws(JSONError) -> String {
        guard let string else { throw JSONError(.typeMismatch, "\(what) must be a string, found \(kindName)") }
        return string
    }
}
