import MediaDRMJSON

/// Typed reads of manifest and policy members. Each failure names the member's path (never its
/// value) and carries the code of the document being read, so a manifest problem and a policy
/// problem stay distinguishable.
struct JSONFields {
    let object: JSONObject
    let path: String
    let code: TDFError.Code

    init(_ object: JSONObject, path: String, code: TDFError.Code) {
        self.object = object
        self.path = path
        self.code = code
    }

    static func root(_ value: JSONValue, name: String, code: TDFError.Code) throws(TDFError) -> JSONFields {
        guard case .object(let object) = value else {
            throw TDFError(code, "\(name) is not a JSON object")
        }
        return JSONFields(object, path: name, code: code)
    }

    private func fail(_ key: String, _ problem: String) -> TDFError {
        TDFError(code, "\(path).\(key) \(problem)")
    }

    /// A member that is absent or JSON null reads as nil.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    func string(_ key: String) throws(TDFError) -> String {
        guard let value = value(key) else { throw fail(key, "is missing") }
        guard case .string(let text) = value else { throw fail(key, "is not a string") }
        return text
    }

    func optionalString(_ key: String) throws(TDFError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw fail(key, "is not a string") }
        return text
    }

    func bool(_ key: String) throws(TDFError) -> Bool {
        guard let value = value(key) else { throw fail(key, "is missing") }
        guard case .bool(let flag) = value else { throw fail(key, "is not a boolean") }
        return flag
    }

    func optionalBool(_ key: String) throws(TDFError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw fail(key, "is not a boolean") }
        return flag
    }

    /// A non-negative integer that fits in Int64 (sizes and counts).
    func size(_ key: String) throws(TDFError) -> Int64 {
        guard let value = value(key) else { throw fail(key, "is missing") }
        return try Self.size(value, label: "\(path).\(key)", code: code)
    }

    func optionalSize(_ key: String) throws(TDFError) -> Int64? {
        guard let value = value(key) else { return nil }
        return try Self.size(value, label: "\(path).\(key)", code: code)
    }

    static func size(_ value: JSONValue, label: String, code: TDFError.Code) throws(TDFError) -> Int64 {
        guard case .number(let number) = value else { throw TDFError(code, "\(label) is not a number") }
        guard let integer = number.int64 else { throw TDFError(code, "\(label) is not an integer") }
        guard integer >= 0 else { throw TDFError(code, "\(label) is negative") }
        return integer
    }

    func object(_ key: String) throws(TDFError) -> JSONFields {
        guard let value = value(key) else { throw fail(key, "is missing") }
        guard case .object(let inner) = value else { throw fail(key, "is not an object") }
        return JSONFields(inner, path: "\(path).\(key)", code: code)
    }

    func array(_ key: String) throws(TDFError) -> [JSONValue] {
        guard let value = value(key) else { throw fail(key, "is missing") }
        guard case .array(let items) = value else { throw fail(key, "is not an array") }
        return items
    }

    /// An array that may be absent or null (read as empty), as Go and Python writers emit.
    func optionalArray(_ key: String) throws(TDFError) -> [JSONValue] {
        guard let value = value(key) else { return [] }
        guard case .array(let items) = value else { throw fail(key, "is not an array") }
        return items
    }

    func element(_ value: JSONValue, of key: String, at index: Int) throws(TDFError) -> JSONFields {
        guard case .object(let inner) = value else { throw fail("\(key)[\(index)]", "is not an object") }
        return JSONFields(inner, path: "\(path).\(key)[\(index)]", code: code)
    }
}

/// Builds an ordered JSON object, skipping nil optionals.
struct JSONObjectBuilder {
    private(set) var members: [(String, JSONValue)] = []

    mutating func add(_ key: String, _ value: JSONValue) { members.append((key, value)) }
    mutating func add(_ key: String, _ text: String) { members.append((key, .string(text))) }
    mutating func add(_ key: String, _ flag: Bool) { members.append((key, .bool(flag))) }
    mutating func add(_ key: String, _ number: Int64) { members.append((key, .number(JSONNumber(Int(number))))) }
    mutating func addIfPresent(_ key: String, _ text: String?) {
        if let text { members.append((key, .string(text))) }
    }

    var value: JSONValue { .object(JSONObject(members)) }
}

/// Parses JSON bytes, mapping a parser failure to the given TDF code with the parser's reason.
func parseJSON(_ bytes: [UInt8], limits: JSONLimits, code: TDFError.Code, name: String) throws(TDFError) -> JSONValue {
    do {
        return try JSONParser.parse(bytes, limits: limits)
    } catch {
        throw TDFError(code, "\(name) is not valid JSON: \(error.reason)")
    }
}
