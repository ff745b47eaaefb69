import Foundation
import MediaDRMCrypto

/// The KAS's key-access keys, loaded from `<data dir>/keys/`:
///
/// - `index.json`: the index (see `KeyRingIndex` for its shape): kids, algorithm, created and
///   retired times, the active kid per algorithm.
/// - `<kid>.pem`: one PKCS#8 private key per kid, mode 0600. Kids are the algorithm's letter and
///   a serial that is never reused: `r1`, `r2`, ... for RSA, `e1`, `e2`, ... for P-256; the dev
///   token issuer's key is `dev1`.
/// - `.lock`: taken by `generate`, `rotate` and `remove` so concurrent runs do not interleave.
/// - `seal-check`: present when the ring is sealed: every `<kid>.pem` is then encrypted under a
///   key-encryption key kept outside the directory (`KeyRingSeal`, `SealedKeyFile`).
///
/// The directory is mode 0700. A loaded ring is an immutable snapshot, safe to share between
/// threads; a running server picks up a rotation by loading a new snapshot (`KeyRingHolder`).
public struct KeyRing: Sendable {
    public static let keysDirectoryName = "keys"
    public static let indexFileName = "index.json"

    public let dataDirectory: String
    /// Every key-access key, in index order.
    package let keys: [KeyRingKey]
    /// The development token issuer, when the ring has one.
    public let devIssuer: DevIssuer?
    /// The offline-licence signing keys, in index order (docs/offline.md).
    package let licenseSigners: [OfflineLicenseSigner]
    /// The key-encryption key the ring was opened with; kept so a reload (SIGHUP) opens the
    /// rotated ring the same way. Nil for an unsealed ring.
    package let sealKey: KeyRingSealKey?

    init(dataDirectory: String, keys: [KeyRingKey], devIssuer: DevIssuer?, licenseSigners: [OfflineLicenseSigner] = [],
         sealKey: KeyRingSealKey? = nil) {
        self.dataDirectory = dataDirectory
        self.keys = keys
        self.devIssuer = devIssuer
        self.licenseSigners = licenseSigners
        self.sealKey = sealKey
    }

    /// Whether the private key files are sealed at rest.
    public var isSealed: Bool { sealKey != nil }

    /// The licence-signing key that signs new and renewed licences.
    package var activeLicenseSigner: OfflineLicenseSigner? { licenseSigners.first(where: \.isActive) }

    public var keysDirectory: String { Self.keysDirectory(dataDirectory) }
    package var entries: [KeyRingEntry] { keys.map(\.entry) }

    static func keysDirectory(_ dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent(keysDirectoryName)
    }

    static func indexPath(_ dataDirectory: String) -> String {
        (keysDirectory(dataDirectory) as NSString).appendingPathComponent(indexFileName)
    }

    static func keyPath(_ dataDirectory: String, kid: String) -> String {
        (keysDirectory(dataDirectory) as NSString).appendingPathComponent(kid + ".pem")
    }

    /// Whether `dataDirectory` holds a key ring index (it may still fail to load).
    public static func exists(dataDirectory: String) -> Bool {
        SecureFiles.exists(indexPath(dataDirectory))
    }

    /// Loads and checks the whole ring: the index, then every private key it lists. The keys
    /// directory and the key files must not be accessible by group or others. A sealed ring
    /// needs its key-encryption key (`KeyRingSealKey.resolve`); an unsealed one ignores it.
    public static func load(dataDirectory: String, sealKey: KeyRingSealKey? = nil) throws(KeyRingError) -> KeyRing {
        let directory = keysDirectory(dataDirectory)
        let notInitialized = KeyRingError(
            .notInitialized, "no key ring in '\(dataDirectory)' (run 'kas keys generate --data-dir \(dataDirectory)')")
        guard let mode = SecureFiles.mode(of: directory) else { throw notInitialized }
        guard mode & 0o077 == 0 else {
            throw KeyRingError(.insecurePermissions,
                               "'\(directory)' is accessible by group or others (mode \(String(mode, radix: 8))); it must be 0700")
        }
        let index = try readIndex(dataDirectory, missing: notInitialized)
        let seal = try KeyRingSeal.check(dataDirectory, sealKey: sealKey)
        var keys: [KeyRingKey] = []
        for entry in index.entries {
            let path = keyPath(dataDirectory, kid: entry.kid)
            let pem = try readKeyFile(path, kid: entry.kid, seal)
            keys.append(try KeyRingKey(entry: entry, pem: pem, file: path))
        }
        var devIssuer: DevIssuer?
        if let issuer = index.devIssuer {
            let path = keyPath(dataDirectory, kid: issuer.kid)
            // Read outside `try?`: a seal failure must surface as itself, not as a bad key.
            let pem = try readKeyFile(path, kid: issuer.kid, seal)
            guard let key = try? ECP256.Signing.PrivateKey(pemRepresentation: pem) else {
                throw KeyRingError(.corruptKey, "key file '\(path)' is not a valid P-256 private key")
            }
            devIssuer = DevIssuer(kid: issuer.kid, created: issuer.created, privateKey: key)
        }
        var signers: [OfflineLicenseSigner] = []
        for entry in index.licenseSigners.entries {
            let path = keyPath(dataDirectory, kid: entry.kid)
            let pem = try readKeyFile(path, kid: entry.kid, seal)
            guard let key = try? ECP256.Signing.PrivateKey(pemRepresentation: pem) else {
                throw KeyRingError(.corruptKey, "key file '\(path)' is not a valid P-256 private key")
            }
            signers.append(OfflineLicenseSigner(kid: entry.kid, created: entry.created, retired: entry.retired, privateKey: key))
        }
        return KeyRing(dataDirectory: dataDirectory, keys: keys, devIssuer: devIssuer, licenseSigners: signers,
                       sealKey: seal.sealKey)
    }

    static func readIndex(_ dataDirectory: String, missing: KeyRingError) throws(KeyRingError) -> KeyRingIndex {
        let path = indexPath(dataDirectory)
        return try KeyRingIndex(bytes: SecureFiles.read(path, privateFile: false, missing: missing), file: path)
    }

    private static func readKeyFile(_ path: String, kid: String, _ seal: KeyRingSeal) throws(KeyRingError) -> String {
        let bytes = try seal.plaintext(
            SecureFiles.read(path, privateFile: true, missing: KeyRingError(.corruptKey, "key file '\(path)' is missing")),
            kid: kid)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw KeyRingError(.corruptKey, "key file '\(path)' is not PEM text")
        }
        return text
    }

    // MARK: Lookup

    /// The active key of `algorithm`.
    package func active(_ algorithm: KeyAlgorithm) -> KeyRingKey? {
        keys.first { $0.algorithm == algorithm && $0.entry.isActive }
    }

    /// The key with this kid, of any algorithm.
    package func key(kid: String) -> KeyRingKey? {
        keys.first { $0.kid == kid }
    }

    /// The keys to try, in order, for a key wrapped with `algorithm`: with a kid, exactly that
    /// key (none when the kid is unknown or names a key of another algorithm, never a fallback,
    /// so a manifest cannot steer an unwrap to a key it did not name); without one, the active
    /// key, then the retired keys newest first.
    package func candidates(kid: String?, algorithm: KeyAlgorithm) -> [KeyRingKey] {
        if let kid {
            return keys.filter { $0.kid == kid && $0.algorithm == algorithm }
        }
        let retired = keys.filter { $0.algorithm == algorithm && !$0.entry.isActive }
            .sorted { ($0.entry.retired ?? .distantPast) > ($1.entry.retired ?? .distantPast) }
        return (active(algorithm).map { [$0] } ?? []) + retired
    }

    /// Unwraps a key-access `wrapped` key (RSA-OAEP with SHA-1 and MGF1-SHA-1, docs/formats.md "Cryptographic conventions") and
    /// reports which kid did it.
    public func unwrapRSA(_ wrapped: some DataProtocol, kid: String?) throws(KeyRingError) -> (key: Data, kid: String) {
        let candidates = candidates(kid: kid, algorithm: .rsa2048)
        guard !candidates.isEmpty else { throw noKey(kid, .rsa2048) }
        let bytes = Data(wrapped)
        for candidate in candidates {
            guard let key = candidate.rsaPrivateKey else { continue }
            if let plain = try? key.decrypt(bytes, padding: .oaepSHA1) { return (plain, candidate.kid) }
        }
        throw KeyRingError(.unwrapFailed, "no \(KeyAlgorithm.rsa2048.rawValue) key of the ring unwraps the key")
    }

    /// Unwraps an `ec-wrapped` key: ECDH between the ring's P-256 key and the wrapper's
    /// ephemeral public key, HKDF-SHA256 (salt SHA-256("TDF"), empty info) to an AES-256 key,
    /// AES-GCM over `nonce ‖ ciphertext ‖ tag` (docs/formats.md "Cryptographic conventions").
    public func unwrapEC(_ wrapped: some DataProtocol, ephemeralPublicKey: ECP256.KeyAgreement.PublicKey,
                         kid: String?) throws(KeyRingError) -> (key: Data, kid: String) {
        let candidates = candidates(kid: kid, algorithm: .ecSecp256r1)
        guard !candidates.isEmpty else { throw noKey(kid, .ecSecp256r1) }
        guard let box = try? AESCipher.GCM.SealedBox(combined: wrapped) else {
            throw KeyRingError(.unwrapFailed, "the ec-wrapped key is shorter than nonce and tag")
        }
        let salt = SHA256Digest.hash(data: Data("TDF".utf8))
        for candidate in candidates {
            guard let key = candidate.ecPrivateKey,
                  let secret = try? key.sharedSecretFromKeyAgreement(with: ephemeralPublicKey),
                  let wrapKey = try? secret.hkdfDerivedSymmetricKey(salt: salt, sharedInfo: Data(), outputByteCount: 32)
            else { continue }
            if let plain = try? AESCipher.GCM.open(box, using: wrapKey) { return (plain, candidate.kid) }
        }
        throw KeyRingError(.unwrapFailed, "no \(KeyAlgorithm.ecSecp256r1.rawValue) key of the ring unwraps the key")
    }

    private func noKey(_ kid: String?, _ algorithm: KeyAlgorithm) -> KeyRingError {
        // The kid is manifest data: it is named only after the kid syntax check.
        if let kid {
            let shown = KeyRingIndex.isValidKid(kid) ? "'\(kid)'" : "(invalid kid)"
            return KeyRingError(.unknownKey, "no \(algorithm.rawValue) key has kid \(shown)")
        }
        return KeyRingError(.unknownKey, "the ring has no \(algorithm.rawValue) key")
    }
}
