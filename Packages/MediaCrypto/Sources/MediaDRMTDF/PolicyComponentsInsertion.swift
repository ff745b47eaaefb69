// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMJSON
import MediaDRMMedia

extension TDFPolicy {
    /// Inserts `arkavo:components` into policy JSON text exactly as fps-v2 §5.3 has the writer
    /// do it: as the object's first member, compact, each entry's keys in the order id, kind,
    /// keyBinding, and no other byte of the original text changed. The bytes are spliced right
    /// after the opening `{` (with a `,` when the object already had members), so whitespace,
    /// member order, number spellings and escapes of the original all survive.
    ///
    /// Refused: text that is not a JSON object under the strict parser, a policy that already has
    /// `arkavo:components` (a producer error), and an empty component list.
    public static func insertComponents(_ components: MediaComponentList, intoPolicyJSON policy: some DataProtocol,
                                        limits: TDFLimits = .default) throws(TDFError) -> Data {
        guard !components.entries.isEmpty else {
            throw TDFError(.invalidArgument, "arkavo:components must not be empty")
        }
        let bytes = Array(policy)
        guard bytes.count <= limits.maxPolicyBytes else {
            throw TDFError(.limitExceeded, "policy is larger than maxPolicyBytes")
        }
        var jsonLimits = JSONLimits.default
        jsonLimits.maxBytes = limits.maxPolicyBytes
        let value = try parseJSON(bytes, limits: jsonLimits, code: .malformedPolicy, name: "policy")
        guard case .object(let object) = value else {
            throw TDFError(.malformedPolicy, "policy is not a JSON object")
        }
        guard object[componentsKey] == nil else {
            throw TDFError(.invalidArgument, "policy already has arkavo:components")
        }

        // The parser accepted an object, so the first non-whitespace byte is '{'.
        guard let open = bytes.firstIndex(where: { !isJSONWhitespace($0) }), bytes[open] == UInt8(ascii: "{") else {
            throw TDFError(.malformedPolicy, "policy does not start with an object")
        }
        let afterOpen = open + 1
        var isEmpty = false
        if let next = bytes[afterOpen...].firstIndex(where: { !isJSONWhitespace($0) }) {
            isEmpty = bytes[next] == UInt8(ascii: "}")
        }

        let list = JSONWriter.write(components.jsonValue, options: [])
        var output = Data()
        output.reserveCapacity(bytes.count + list.count + componentsKey.utf8.count + 4)
        output.append(contentsOf: bytes[..<afterOpen])
        output.append(contentsOf: Array("\"\(componentsKey)\":".utf8))
        output.append(list)
        if !isEmpty { output.append(UInt8(ascii: ",")) }
        output.append(contentsOf: bytes[afterOpen...])
        return output
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
