import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// The key-encryption key of a sealed key ring: 32 bytes (AES-256) that never touch the ring's
/// directory. Found, first match wins, in
///
/// 1. a file: `keyRing.sealKeyFile` in the configuration file or `KAS_KEY_RING_SEAL_KEY_FILE`;
/// 2. `KAS_KEY_RING_SEAL_KEY`, the key in base64;
/// 3. the systemd credential `$CREDENTIALS_DIRECTORY/kas-seal-key` (`LoadCredential=kas-seal-key:/path`).
///
/// A file holds the 32 raw bytes or their base64 (surrounding whitespace ignored) and must not
/// be readable by group or others. Reasons name the source, never the bytes.
public struct KeyRingSealKey: Sendable, CustomStringConvertible {
    public static let fileVariable = "KAS_KEY_RING_SEAL_KEY_FILE"
    public static let valueVariable = "KAS_KEY_RING_SEAL_KEY"
    public static let credentialName = "kas-seal-key"
    public static let byteCount = 32

    /// Where an operator can provide the key, for "the ring is sealed" messages.
    public static let sourcesHint =
        "set \(fileVariable) (or keyRing.sealKeyFile), \(valueVariable), or the systemd credential '\(credentialName)'"

    let key: SecretKey

    public init(bytes: some DataProtocol) throws(KeyRingError) {
        guard bytes.count == Self.byteCount else {
            throw KeyRingError(.sealKeyInvalid, "the key-encryption key must be \(Self.byteCount) bytes")
        }
        key = SecretKey(data: bytes)
    }

    /// A fresh random key (tests, and operators through `openssl rand`).
    public static func random() throws(KeyRingError) -> KeyRingSealKey {
        do {
            return try KeyRingSealKey(bytes: SecureRandom.bytes(count: byteCount))
        } catch let error as KeyRingError {
            throw error
        } catch {
            throw KeyRingError(.crypto, "cannot draw a key-encryption key")
        }
    }

    /// Never the key: logs and error reports may print a ring.
    public var description: String { "KeyRingSealKey(256 bits)" }

    /// The key from the first source set (see the type's documentation), nil when none is.
    /// `file` is the configured path (`keyRing.sealKeyFile`), which `KAS_KEY_RING_SEAL_KEY_FILE`
    /// overrides like every environment setting.
    public static func resolve(file: String? = nil, environment: [String: String]) throws(KeyRingError) -> KeyRingSealKey? {
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        if let path = value(fileVariable) ?? file {
            return try read(path, source: "the key-encryption key file '\(path)'")
        }
        if let text = value(valueVariable) {
            return try decode(Array(text.utf8), source: valueVariable)
        }
        if let directory = value("CREDENTIALS_DIRECTORY") {
            let path = (directory as NSString).appendingPathComponent(credentialName)
            if SecureFiles.exists(path) {
                return try read(path, source: "the systemd credential '\(credentialName)'")
            }
        }
        return nil
    }

    private static func read(_ path: String, source: String) throws(KeyRingError) -> KeyRingSealKey {
        let bytes: [UInt8]
        do {
            bytes = try SecureFiles.read(path, privateFile: true,
                                         missing: KeyRingError(.sealKeyInvalid, "\(source) does not exist"))
        } catch where error.code == .sealKeyInvalid {
            throw error
        } catch {
            // The file's own reason (permissions, not a regular file) names the path, not the key.
            throw KeyRingError(.sealKeyInvalid, error.reason)
        }
        // 32 raw bytes are taken as they are, whatever they look like; anything else is base64.
        if bytes.count == byteCount { return try KeyRingSealKey(bytes: bytes) }
        return try decode(bytes, source: source)
    }

    private static func decode(_ text: [UInt8], source: String) throws(KeyRingError) -> KeyRingSealKey {
        let trimmed = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: trimmed), bytes.count == byteCount else {
            throw KeyRingError(.sealKeyInvalid, "\(source) is not \(byteCount) bytes in base64 (or raw)")
        }
        return try KeyRingSealKey(bytes: bytes)
    }
}
