import MediaDRMCrypto

/// Rules every HS256 key must meet, shared by signing and verification keys.
enum HMACKeyPolicy {
    /// RFC 7518 §3.2: a key of the same size as the hash output or larger.
    static let minimumByteCount = 32

    /// Refuses short keys and keys whose bytes are a public key in text form. Someone who
    /// configures a PEM public key as an HMAC secret has built the classic algorithm-confusion
    /// hole (anyone holding the public key can mint tokens), so such a key is never accepted.
    static func check(_ key: SecretKey) throws(JOSEError) {
        guard key.byteCount >= minimumByteCount else {
            throw JOSEError(.invalidKey, "HS256 key must be at least 32 bytes")
        }
        let looksLikePublicKey = key.withUnsafeBytes { raw -> Bool in
            let bytes = Array(raw)
            for marker in textKeyMarkers where contains(bytes, marker) { return true }
            return false
        }
        guard !looksLikePublicKey else {
            throw JOSEError(.invalidKey, "HS256 key is a PEM or SSH key, not a shared secret")
        }
    }

    private static let textKeyMarkers: [[UInt8]] = [
        Array("-----BEGIN".utf8), Array("ssh-rsa ".utf8), Array("ecdsa-sha2-".utf8), Array("ssh-ed25519 ".utf8),
    ]

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
