import Foundation

/// How long a fetched key set is used before the refresher fetches it again: the `max-age` of the
/// key set's `Cache-Control` (RFC 9111 §5.2.2.1), held between a minute (a provider that says
/// `no-cache` or `max-age=0` is not fetched on every token) and a day (a provider that says a
/// year still has its key removals seen by the next day).
package enum KeySetLifetime {
    package static let minimumSeconds: TimeInterval = 60
    package static let maximumSeconds: TimeInterval = 86_400
    /// No `max-age`: five minutes, so a key the provider removes stops verifying soon.
    package static let withoutMaxAgeSeconds: TimeInterval = 300

    package static func seconds(cacheControl: String?) -> TimeInterval {
        guard let cacheControl else { return withoutMaxAgeSeconds }
        var maxAge: TimeInterval?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "no-store", "no-cache":
                return minimumSeconds
            case "max-age":
                let text = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                let digits = text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 ? String(text.dropFirst().dropLast()) : text
                // A malformed max-age is treated as the shortest lifetime (RFC 9111 §4.2.1: stale).
                let value = digits.isEmpty || !digits.allSatisfy(\.isASCIIDigit) ? 0 : (TimeInterval(digits) ?? maximumSeconds)
                // Repeated max-age (RFC 9111 §4.2.1 says use none): the shortest is the safe reading.
                maxAge = min(maxAge ?? value, value)
            default:
                continue
            }
        }
        guard let maxAge else { return withoutMaxAgeSeconds }
        return min(max(maxAge, minimumSeconds), maximumSeconds)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
