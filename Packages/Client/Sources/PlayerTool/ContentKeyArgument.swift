import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMToolSupport

/// A `--key KID:KEY` value, as Bento4's mp4decrypt takes it: both 32 hex digits.
struct ContentKeyArgument {
    let keyID: [UInt8]
    let key: SecretKey

    init(parsing text: String) throws(UsageError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 32, parts[1].count == 32,
              let kid = try? Hex.decode(parts[0]), let key = try? Hex.decode(parts[1]) else {
            // The value holds a key: the message does not repeat it.
            throw UsageError("invalid --key: expected KID:KEY, each 32 hex digits")
        }
        keyID = [UInt8](kid)
        self.key = SecretKey(data: key)
    }

    /// Every `--key`, refusing a KID given twice.
    static func parseAll(_ values: [String]) throws(UsageError) -> [[UInt8]: SecretKey] {
        var keys: [[UInt8]: SecretKey] = [:]
        for value in values {
            let parsed = try ContentKeyArgument(parsing: value)
            guard keys[parsed.keyID] == nil else {
                throw UsageError("--key given twice for KID \(Hex.encode(parsed.keyID))")
            }
            keys[parsed.keyID] = parsed.key
        }
        return keys
    }
}
