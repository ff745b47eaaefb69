import Foundation
import MediaDRMCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The FairPlay licence URLs' HMAC key of a single node (`PlaybackStore.licenseURLKey`), kept in
/// the data directory (`KASDataDirectory.licenseURLKey`: 32 random bytes, mode 0600) so that a
/// restarted KAS still accepts the licence URLs it handed out before, as it still holds their
/// playbacks. Nodes sharing a Redis keep theirs there instead (`RedisPlaybackStore`).
///
/// Drawn once, when the file is absent, and never replaced: the new file is written whole under
/// a temporary name and linked into place, which fails rather than overwrite a key another
/// process (a `kas` command on the same directory) put there first; that one is then read.
enum LicenseURLKeyFile {
    static func loadOrCreate(_ path: String) throws(StoreError) -> SecretKey {
        if let key = try read(path) { return key }
        let fresh: SecretKey
        do {
            fresh = try LicenseURLSigner.randomKey()
        } catch {
            throw StoreError(.unavailable, "the system random generator is unavailable")
        }
        let temporary = path + ".new-\(getpid())"
        do {
            try SecureFiles.writeAtomically(fresh.withUnsafeBytes { Data($0) }, to: temporary, mode: 0o600)
        } catch {
            throw StoreError(.open, "cannot write the licence URL key '\(path)': \(error.reason)")
        }
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let code = errno
            guard code == EEXIST, let stored = try read(path) else {
                throw StoreError(.open, "cannot create the licence URL key '\(path)': \(SecureFiles.errorText(code))")
            }
            return stored
        }
        return fresh
    }

    /// The stored key; nil when there is no file. A file others can read, or of another size,
    /// is refused rather than used or replaced.
    static func read(_ path: String) throws(StoreError) -> SecretKey? {
        let bytes: [UInt8]
        do {
            bytes = try SecureFiles.read(path, privateFile: true, missing: KeyRingError(.notInitialized, ""))
        } catch let error where error.code == .notInitialized {
            return nil
        } catch {
            throw StoreError(.open, "cannot read the licence URL key: \(error.reason)")
        }
        guard bytes.count == LicenseURLSigner.keyByteCount else {
            throw StoreError(.open, "the licence URL key '\(path)' is not \(LicenseURLSigner.keyByteCount) bytes")
        }
        return SecretKey(data: bytes)
    }
}
