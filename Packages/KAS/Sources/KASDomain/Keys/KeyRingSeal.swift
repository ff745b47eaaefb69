import Foundation

/// Whether a ring is sealed, and the checked key-encryption key when it is: every read and
/// write of a private key file goes through this, so a ring is either sealed throughout or not
/// at all. The ring is sealed exactly when `keys/seal-check` exists (`SealedKeyFile`).
///
/// Its failures are fixed sentences: they say what is missing or wrong, never which key file
/// failed, so a log or a terminal shows nothing about individual keys.
struct KeyRingSeal: Sendable {
    /// The checked key-encryption key; nil for an unsealed ring.
    let sealKey: KeyRingSealKey?

    var isSealed: Bool { sealKey != nil }

    static let missing = KeyRingError(.sealKeyMissing, "the key ring is sealed: \(KeyRingSealKey.sourcesHint)")
    static let wrongKey = KeyRingError(.sealMismatch, "the key-encryption key does not open the key ring")
    static let modifiedFile = KeyRingError(
        .sealMismatch, "a sealed key file does not open: it was modified or sealed under another key-encryption key")
    static let partlySealed = KeyRingError(
        .partlySealed,
        "the key ring is partly sealed (an interrupted 'kas keys seal' or 'kas keys unseal'): run the same command again")

    static func checkPath(_ dataDirectory: String) -> String {
        (KeyRing.keysDirectory(dataDirectory) as NSString).appendingPathComponent(SealedKeyFile.checkFileName)
    }

    static func isSealed(_ dataDirectory: String) -> Bool {
        SecureFiles.exists(checkPath(dataDirectory))
    }

    /// The ring's state. A sealed ring needs `sealKey`, and it must open the seal check; a key
    /// given for an unsealed ring is not used.
    static func check(_ dataDirectory: String, sealKey: KeyRingSealKey?) throws(KeyRingError) -> KeyRingSeal {
        guard isSealed(dataDirectory) else { return KeyRingSeal(sealKey: nil) }
        guard let sealKey else { throw missing }
        try verify(sealKey, dataDirectory)
        return KeyRingSeal(sealKey: sealKey)
    }

    /// Whether `sealKey` opens the seal check (which must exist).
    static func verify(_ sealKey: KeyRingSealKey, _ dataDirectory: String) throws(KeyRingError) {
        let bytes = try SecureFiles.read(checkPath(dataDirectory), privateFile: true, missing: wrongKey)
        let plain = try SealedKeyFile.open(bytes, name: SealedKeyFile.checkName, with: sealKey, failure: wrongKey)
        guard plain == Array(SealedKeyFile.checkPlaintext) else { throw wrongKey }
    }

    /// Writes the seal check, which makes the ring sealed.
    static func writeCheck(_ sealKey: KeyRingSealKey, _ dataDirectory: String) throws(KeyRingError) {
        let sealed = try SealedKeyFile.seal(Array(SealedKeyFile.checkPlaintext), name: SealedKeyFile.checkName, with: sealKey)
        try SecureFiles.writeAtomically(sealed, to: checkPath(dataDirectory), mode: 0o600)
    }

    /// A key file's PEM bytes as read from disk: opened when the ring is sealed. A file in the
    /// other form than the ring's is a half-converted ring.
    func plaintext(_ bytes: [UInt8], kid: String) throws(KeyRingError) -> [UInt8] {
        guard let sealKey else {
            if SealedKeyFile.isSealed(bytes) { throw Self.partlySealed }
            return bytes
        }
        // A plain key in a sealed ring is a half-done conversion; anything else that is not a
        // sealed file (a damaged header) fails to open like any other modification.
        if SealedKeyFile.isPlain(bytes) { throw Self.partlySealed }
        return try SealedKeyFile.open(bytes, name: kid, with: sealKey, failure: Self.modifiedFile)
    }

    /// What to write for a new key file: sealed when the ring is.
    func stored(_ pem: [UInt8], kid: String) throws(KeyRingError) -> Data {
        guard let sealKey else { return Data(pem) }
        return try SealedKeyFile.seal(pem, name: kid, with: sealKey)
    }
}
