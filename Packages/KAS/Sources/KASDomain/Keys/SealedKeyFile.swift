import Foundation
import MediaDRMCrypto

/// The on-disk form of a sealed private key file (docs/kas.md "Sealed key ring"):
///
/// ```
/// "KASSEAL" 0x01 | nonce (12) | AES-256-GCM ciphertext of the PKCS#8 PEM file | tag (16)
/// ```
/// The associated data is the 8-byte header followed by the kid (UTF-8), so a sealed file
/// cannot be moved to another kid's name or read as another format version. The plaintext is
/// the file's exact bytes, so unsealing gives back the original file. A PEM file starts with
/// `-----`, so the header tells the two forms apart.
///
/// The seal check `keys/seal-check` has the same layout over a fixed text, with `.seal-check`
/// (never a valid kid) in place of the kid: it marks the ring as sealed and tells a wrong
/// key-encryption key apart from a modified key file.
enum SealedKeyFile {
    static let header: [UInt8] = Array("KASSEAL".utf8) + [0x01]
    static let checkFileName = "seal-check"
    static let checkName = ".seal-check"
    static let checkPlaintext = Data("kas key ring seal check, version 1".utf8)

    static func isSealed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= header.count && bytes.starts(with: Array("KASSEAL".utf8))
    }

    /// Whether the file is (or starts like) a plain PEM key. Neither this nor sealed is a
    /// damaged file, which is never taken for a plain key to seal.
    static func isPlain(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("-----".utf8))
    }

    static func seal(_ plaintext: [UInt8], name: String, with sealKey: KeyRingSealKey) throws(KeyRingError) -> Data {
        do {
            let box = try AESCipher.GCM.seal(plaintext, using: sealKey.key, authenticating: associatedData(name))
            return Data(header) + box.combined
        } catch {
            throw KeyRingError(.crypto, "cannot seal a key file")
        }
    }

    /// The plaintext; any failure (other version, short file, wrong key, a flipped bit) is the
    /// same fixed error, which names neither the file nor the kid.
    static func open(_ bytes: [UInt8], name: String, with sealKey: KeyRingSealKey,
                     failure: KeyRingError) throws(KeyRingError) -> [UInt8] {
        guard bytes.starts(with: header),
              let box = try? AESCipher.GCM.SealedBox(combined: bytes[header.count...]),
              let plain = try? AESCipher.GCM.open(box, using: sealKey.key, authenticating: associatedData(name))
        else { throw failure }
        return Array(plain)
    }

    private static func associatedData(_ name: String) -> Data {
        Data(header) + Data(name.utf8)
    }
}
