import MediaDRMJSON

/// Typed reads of JOSE header, JWK and claim members. A member that is present with the wrong
/// JSON type is an error (never treated as absent), so a string `exp` cannot slip past a check.
extension JSONObject {
    func joseString(_ key: String, _ wrongType: JOSEError) throws(JOSEError) -> String? {
        guard let value = self[key] else { return nil }
        guard case .string(let text) = value else { throw wrongType }
        return text
    }

    func joseStringArray(_ key: String, _ wrongType: JOSEError) throws(JOSEError) -> [String]? {
        guard let value = self[key] else { return nil }
        guard case .array(let items) = value else { throw wrongType }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for item in items {
            guard case .string(let text) = item else { throw wrongType }
            strings.append(text)
        }
        return strings
    }

    /// A NumericDate (RFC 7519 §2): a JSON number of seconds since the epoch, finite.
    func joseNumericDate(_ key: String, _ wrongType: JOSEError) throws(JOSEError) -> Double? {
        guard let value = self[key] else { return nil }
        guard case .number(let number) = value, let seconds = number.double, seconds.isFinite
        else { throw wrongType }
        return seconds
    }
}
