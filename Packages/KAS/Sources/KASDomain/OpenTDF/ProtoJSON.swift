import MediaDRMEncoding
import Foundation
import MediaDRMJSON

/// Reading proto3 JSON (protojson) for the few OpenTDF messages: a field may be spelled with
/// its JSON name or its proto name (not both), `null` means the default, unknown members are
/// ignored (as the OpenTDF platform reads them) unless the message refuses them
/// (`refuseUnknownMembers`), and `bytes` are base64 in either alphabet, padded or not.
package enum ProtoJSON {
    /// Refuses a member whose name is not in `known` (JSON or proto spellings).
    static func refuseUnknownMembers(_ object: JSONObject, known: Set<String>, in message: String) throws(OpenTDFError) {
        guard object.keys.allSatisfy(known.contains) else {
            throw OpenTDFError(.malformedRequest, "\(message) has an unknown member")
        }
    }

    static func value(_ object: JSONObject, _ jsonName: String, _ protoName: String? = nil,
                      in message: String) throws(OpenTDFError) -> JSONValue? {
        var found = object[jsonName]
        if let protoName, protoName != jsonName, let other = object[protoName] {
            guard found == nil else {
                throw OpenTDFError(.malformedRequest, "\(message).\(jsonName) is given twice")
            }
            found = other
        }
        if case .null = found { return nil }
        return found
    }

    static func string(_ object: JSONObject, _ jsonName: String, _ protoName: String? = nil,
                       in message: String) throws(OpenTDFError) -> String {
        guard let value = try value(object, jsonName, protoName, in: message) else { return "" }
        guard case .string(let text) = value else {
            throw OpenTDFError(.malformedRequest, "\(message).\(jsonName) is not a string")
        }
        return text
    }

    static func bytes(_ object: JSONObject, _ jsonName: String, _ protoName: String? = nil,
                      in message: String) throws(OpenTDFError) -> Data {
        let text = try string(object, jsonName, protoName, in: message)
        return try decodeBytes(text, field: "\(message).\(jsonName)")
    }

    static func object(_ object: JSONObject, _ jsonName: String, _ protoName: String? = nil,
                       in message: String) throws(OpenTDFError) -> JSONObject? {
        guard let value = try value(object, jsonName, protoName, in: message) else { return nil }
        guard case .object(let inner) = value else {
            throw OpenTDFError(.malformedRequest, "\(message).\(jsonName) is not an object")
        }
        return inner
    }

    static func array(_ object: JSONObject, _ jsonName: String, _ protoName: String? = nil,
                      in message: String) throws(OpenTDFError) -> [JSONValue] {
        guard let value = try value(object, jsonName, protoName, in: message) else { return [] }
        guard case .array(let items) = value else {
            throw OpenTDFError(.malformedRequest, "\(message).\(jsonName) is not an array")
        }
        return items
    }

    static func root(_ value: JSONValue, _ message: String) throws(OpenTDFError) -> JSONObject {
        guard case .object(let object) = value else {
            throw OpenTDFError(.malformedRequest, "\(message) is not a JSON object")
        }
        return object
    }

    package static func parse(_ bytes: some DataProtocol, _ message: String, limits: JSONLimits = .default) throws(OpenTDFError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw OpenTDFError(.malformedRequest, "\(message) is not valid JSON (\(error.code.rawValue))")
        }
        return try root(value, message)
    }

    /// protojson writes standard padded base64 and reads both alphabets, padded or not.
    static func decodeBytes(_ text: String, field: String) throws(OpenTDFError) -> Data {
        if let data = try? Base64.decode(text) { return data }
        var unpadded = Substring(text)
        while unpadded.hasSuffix("=") { unpadded = unpadded.dropLast() }
        if unpadded.contains("+") || unpadded.contains("/") {
            // Standard alphabet without padding.
            let padding = String(repeating: "=", count: (4 - unpadded.utf8.count % 4) % 4)
            if let data = try? Base64.decode(unpadded + padding) { return data }
        } else if let data = try? Base64URL.decode(unpadded) {
            return data
        }
        throw OpenTDFError(.malformedRequest, "\(field) is not base64")
    }

    static func encodeBytes(_ data: some DataProtocol) -> String { Base64.encode(data) }
}
