import Foundation
@testable import MediaDRMJSON

/// An OpenTDF-like manifest: nested objects, arrays, \u escapes (BMP and a surrogate pair), raw
/// UTF-8, integers, a negative, a fraction and an exponent, booleans and null.
let manifestText = #"""
{"encryptionInformation":{"type":"split","policy":"eyJ1dWlkIjoiNjFlZDNjNjctYTc2ZS00YjQ2LWEwNDgtNTEyZjI1MmVhMjk4In0=","keyAccess":[{"type":"wrapped","url":"https://kas.example.com/kas","protocol":"kas","wrappedKey":"dGhpcyBpcyBub3QgYSByZWFsIGtleQ==","policyBinding":{"alg":"HS256","hash":"ZmFrZS1iaW5kaW5n"},"kid":"r1","sid":"","encryptedMetadata":null},{"type":"ec-wrapped","url":"https:\/\/kas2.example.com\/kas","protocol":"kas","ephemeralPublicKey":"-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n","wrappedKey":"AAAA","kid":"e1"}],"method":{"algorithm":"AES-256-GCM","iv":"","isStreamable":true},"integrityInformation":{"rootSignature":{"alg":"HS256","sig":"c2ln"},"segmentHashAlg":"GMAC","segmentSizeDefault":2097152,"encryptedSegmentSizeDefault":2097180,"segments":[{"hash":"aGFzaDE=","segmentSize":2097152,"encryptedSegmentSize":2097180},{"hash":"aGFzaDI=","segmentSize":1024,"encryptedSegmentSize":1052}]}},"payload":{"type":"reference","url":"0.payload","protocol":"zip","isEncrypted":true,"mimeType":"video\/mp4"},"assertions":[],"meta":{"title":"Caf\u00e9 \u2014 \"live\" \ud83c\udfac","titleRaw":"Café — 🎬","rating":4.75,"offset":-12,"scale":1.5e-3,"big":12345678901234567890,"tags":["a","b\tc",null,false],"empty":{}},"schemaVersion":"4.3.0"}
"""#

/// The same document spread over lines with tabs, carriage returns and spaces around every token.
let manifestWhitespaceText: String = {
    var out = ""
    var inString = false
    var escaped = false
    for character in manifestText.unicodeScalars {
        if inString {
            out.unicodeScalars.append(character)
            if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            continue
        }
        switch character {
        case "\"":
            inString = true
            out.unicodeScalars.append(character)
        case "{", "[":
            out += " \(character)\n\t "
        case "}", "]":
            out += "\r\n \(character) "
        case ",":
            out += " ,\n  "
        case ":":
            out += " \t: "
        case "\n":
            break
        default:
            out.unicodeScalars.append(character)
        }
    }
    return "\n\t " + out + " \r\n"
}()

func num(_ text: String) -> JSONNumber { JSONNumber(validatedText: text) }

/// Every path in a value, with the value there (the root is `[]`).
func allPaths(_ value: JSONValue, prefix: [JSONPathComponent] = []) -> [([JSONPathComponent], JSONValue)] {
    var result = [(prefix, value)]
    switch value {
    case .array(let elements):
        for (index, element) in elements.enumerated() {
            result += allPaths(element, prefix: prefix + [.index(index)])
        }
    case .object(let object):
        for (key, member) in object {
            result += allPaths(member, prefix: prefix + [.key(key)])
        }
    default:
        break
    }
    return result
}

/// Compares our value with what Foundation's JSONSerialization made of the same text.
func matchesFoundation(_ value: JSONValue, _ other: Any) -> Bool {
    switch value {
    case .null:
        return other is NSNull
    case .bool(let flag):
        guard let number = other as? NSNumber else { return false }
        return number.boolValue == flag
    case .number(let number):
        guard let double = number.double else { return false }
        if let integer = number.int64, let theirs = other as? NSNumber, !(other is Bool) {
            if theirs.int64Value == integer { return true }
        }
        let theirs: Double
        if let decimal = other as? Decimal {
            theirs = NSDecimalNumber(decimal: decimal).doubleValue
        } else if let nsNumber = other as? NSNumber {
            theirs = nsNumber.doubleValue
        } else {
            return false
        }
        return theirs == double || abs(theirs - double) <= abs(double) * 1e-15
    case .string(let string):
        return (other as? String) == string
    case .array(let elements):
        guard let theirs = other as? [Any], theirs.count == elements.count else { return false }
        return zip(elements, theirs).allSatisfy { matchesFoundation($0, $1) }
    case .object(let object):
        guard let theirs = other as? [String: Any], theirs.count == object.count else { return false }
        return object.allSatisfy { key, member in
            guard let match = theirs[key] else { return false }
            return matchesFoundation(member, match)
        }
    }
}
