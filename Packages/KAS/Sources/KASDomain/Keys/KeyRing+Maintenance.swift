import Foundation
import MediaDRMCrypto

/// The operations behind `kas keys generate | rotate | remove`. Each takes the ring's lock,
/// re-reads the index, writes new private keys before the index that names them (a crash in
/// between leaves an unused file, never an index naming a missing key), and returns the ring
/// as now on disk. On a sealed ring they need the key-encryption key, checked before anything
/// is written, and write new private keys sealed.
extension KeyRing {
    public struct Change: Sendable {
        public let ring: KeyRing
        /// Kids created by the operation.
        public let created: [String]
        /// Kids retired by the operation.
        public let retired: [String]
        /// Kids removed by the operation.
        public let removed: [String]
    }

    /// Creates the data and keys directories (mode 0700) and whatever is missing of: an active
    /// RSA-2048 key, an active P-256 key, the dev token issuer's ES256 key, the active
    /// offline-licence signing key (ES256). Running it again on a complete ring changes nothing.
    @discardableResult
    public static func generate(dataDirectory: String, sealKey: KeyRingSealKey? = nil,
                                now: Date = Date()) throws(KeyRingError) -> Change {
        try SecureFiles.makePrivateDirectory(dataDirectory)
        let directory = keysDirectory(dataDirectory)
        try SecureFiles.makePrivateDirectory(directory)
        return try SecureFiles.withExclusiveLock(in: directory) { () throws(KeyRingError) -> Change in
            let seal = try KeyRingSeal.check(dataDirectory, sealKey: sealKey)
            var index = try existingIndex(dataDirectory)
            var created: [String] = []
            for algorithm in KeyAlgorithm.allCases where index.active(algorithm) == nil {
                created.append(try addKey(algorithm, to: &index, dataDirectory, now, seal))
            }
            if index.devIssuer == nil {
                let kid = "dev1"
                try writeSigningKey(kid: kid, role: "the dev issuer key", dataDirectory, seal)
                index.devIssuer = KeyRingIndex.DevIssuerEntry(kid: kid, created: truncated(now))
                created.append(kid)
            }
            if index.licenseSigners.active == nil {
                created.append(try addLicenseSigner(to: &index, dataDirectory, now, seal))
            }
            if !created.isEmpty || !SecureFiles.exists(indexPath(dataDirectory)) {
                try writeIndex(index, dataDirectory)
            }
            return Change(ring: try load(dataDirectory: dataDirectory, sealKey: seal.sealKey), created: created, retired: [], removed: [])
        }
    }

    /// Makes a new active key of `algorithm`; the previous active key is retired (kept, and
    /// still tried for unwrapping) until removed.
    @discardableResult
    public static func rotate(_ algorithm: KeyAlgorithm, dataDirectory: String, sealKey: KeyRingSealKey? = nil,
                              now: Date = Date()) throws(KeyRingError) -> Change {
        let directory = try existingKeysDirectory(dataDirectory)
        return try SecureFiles.withExclusiveLock(in: directory) { () throws(KeyRingError) -> Change in
            let seal = try KeyRingSeal.check(dataDirectory, sealKey: sealKey)
            var index = try readIndex(dataDirectory, missing: notInitialized(dataDirectory))
            var retired: [String] = []
            if let position = index.entries.firstIndex(where: { $0.algorithm == algorithm && $0.isActive }) {
                let old = index.entries[position]
                index.entries[position] = KeyRingEntry(kid: old.kid, algorithm: old.algorithm, created: old.created,
                                                       retired: truncated(now))
                retired.append(old.kid)
            }
            let kid = try addKey(algorithm, to: &index, dataDirectory, now, seal)
            try writeIndex(index, dataDirectory)
            return Change(ring: try load(dataDirectory: dataDirectory, sealKey: seal.sealKey), created: [kid], retired: retired, removed: [])
        }
    }

    /// Makes a new active offline-licence signing key; the previous one is retired and stays in
    /// the ring, published while licences it signed are live (docs/offline.md).
    @discardableResult
    public static func rotateLicenseSigner(dataDirectory: String, sealKey: KeyRingSealKey? = nil,
                                           now: Date = Date()) throws(KeyRingError) -> Change {
        let directory = try existingKeysDirectory(dataDirectory)
        return try SecureFiles.withExclusiveLock(in: directory) { () throws(KeyRingError) -> Change in
            let seal = try KeyRingSeal.check(dataDirectory, sealKey: sealKey)
            var index = try readIndex(dataDirectory, missing: notInitialized(dataDirectory))
            var retired: [String] = []
            if let position = index.licenseSigners.entries.firstIndex(where: { $0.retired == nil }) {
                index.licenseSigners.entries[position].retired = truncated(now)
                retired.append(index.licenseSigners.entries[position].kid)
            }
            let kid = try addLicenseSigner(to: &index, dataDirectory, now, seal)
            try writeIndex(index, dataDirectory)
            return Change(ring: try load(dataDirectory: dataDirectory, sealKey: seal.sealKey), created: [kid], retired: retired, removed: [])
        }
    }

    /// Removes a retired key and its file. The active key of an algorithm cannot be removed
    /// (rotate first); after removal, keys wrapped only to it can no longer be unwrapped.
    @discardableResult
    public static func remove(kid: String, dataDirectory: String, sealKey: KeyRingSealKey? = nil) throws(KeyRingError) -> Change {
        let directory = try existingKeysDirectory(dataDirectory)
        return try SecureFiles.withExclusiveLock(in: directory) { () throws(KeyRingError) -> Change in
            let seal = try KeyRingSeal.check(dataDirectory, sealKey: sealKey)
            var index = try readIndex(dataDirectory, missing: notInitialized(dataDirectory))
            guard KeyRingIndex.isValidKid(kid) else {
                throw KeyRingError(.unknownKey, "'\(kid)' is not a valid kid")
            }
            if index.devIssuer?.kid == kid {
                throw KeyRingError(.keyInUse, "'\(kid)' is the dev token issuer key and cannot be removed")
            }
            if let position = index.licenseSigners.entries.firstIndex(where: { $0.kid == kid }) {
                guard index.licenseSigners.entries[position].retired != nil else {
                    throw KeyRingError(.keyInUse, "'\(kid)' is the active offline-license key; rotate before removing it")
                }
                index.licenseSigners.entries.remove(at: position)
                try writeIndex(index, dataDirectory)
                try SecureFiles.remove(keyPath(dataDirectory, kid: kid))
                return Change(ring: try load(dataDirectory: dataDirectory, sealKey: seal.sealKey), created: [], retired: [], removed: [kid])
            }
            guard let position = index.entries.firstIndex(where: { $0.kid == kid }) else {
                throw KeyRingError(.unknownKey, "the ring has no key '\(kid)'")
            }
            guard !index.entries[position].isActive else {
                throw KeyRingError(.keyInUse, "'\(kid)' is the active \(index.entries[position].algorithm.rawValue) key; rotate before removing it")
            }
            index.entries.remove(at: position)
            try writeIndex(index, dataDirectory)
            try SecureFiles.remove(keyPath(dataDirectory, kid: kid))
            return Change(ring: try load(dataDirectory: dataDirectory, sealKey: seal.sealKey), created: [], retired: [], removed: [kid])
        }
    }

    // MARK: Helpers

    static func notInitialized(_ dataDirectory: String) -> KeyRingError {
        KeyRingError(.notInitialized, "no key ring in '\(dataDirectory)' (run 'kas keys generate --data-dir \(dataDirectory)')")
    }

    static func existingKeysDirectory(_ dataDirectory: String) throws(KeyRingError) -> String {
        let directory = keysDirectory(dataDirectory)
        guard SecureFiles.exists(indexPath(dataDirectory)) else { throw notInitialized(dataDirectory) }
        return directory
    }

    private static func existingIndex(_ dataDirectory: String) throws(KeyRingError) -> KeyRingIndex {
        guard SecureFiles.exists(indexPath(dataDirectory)) else { return .empty }
        return try readIndex(dataDirectory, missing: notInitialized(dataDirectory))
    }

    private static func addKey(_ algorithm: KeyAlgorithm, to index: inout KeyRingIndex, _ dataDirectory: String,
                               _ now: Date, _ seal: KeyRingSeal) throws(KeyRingError) -> String {
        let kid = index.nextKid(algorithm)
        let entry = KeyRingEntry(kid: kid, algorithm: algorithm, created: truncated(now), retired: nil)
        let key = try KeyRingKey(generating: algorithm, entry: entry)
        try writeKeyFile(Array(key.privateKeyPEM.utf8), kid: kid, dataDirectory, seal)
        index.entries.append(entry)
        return kid
    }

    private static func addLicenseSigner(to index: inout KeyRingIndex, _ dataDirectory: String,
                                         _ now: Date, _ seal: KeyRingSeal) throws(KeyRingError) -> String {
        let kid = index.licenseSigners.nextKid()
        try writeSigningKey(kid: kid, role: "an offline-license signing key", dataDirectory, seal)
        index.licenseSigners.entries.append(.init(kid: kid, created: truncated(now), retired: nil))
        return kid
    }

    /// A fresh P-256 signing key in `<kid>.pem` (0600), written before the index names it.
    private static func writeSigningKey(kid: String, role: String, _ dataDirectory: String,
                                        _ seal: KeyRingSeal) throws(KeyRingError) {
        let key: ECP256.Signing.PrivateKey
        do {
            key = try ECP256.Signing.PrivateKey()
        } catch {
            throw KeyRingError(.crypto, "cannot generate \(role)")
        }
        try writeKeyFile(Array(key.pemRepresentation.utf8), kid: kid, dataDirectory, seal)
    }

    /// `<kid>.pem` (0600), sealed when the ring is.
    private static func writeKeyFile(_ pem: [UInt8], kid: String, _ dataDirectory: String,
                                     _ seal: KeyRingSeal) throws(KeyRingError) {
        try SecureFiles.writeAtomically(seal.stored(pem, kid: kid), to: keyPath(dataDirectory, kid: kid), mode: 0o600)
    }

    private static func writeIndex(_ index: KeyRingIndex, _ dataDirectory: String) throws(KeyRingError) {
        try SecureFiles.writeAtomically(index.bytes, to: indexPath(dataDirectory), mode: 0o600)
    }

    /// Index times are whole seconds; entries carry the same value in memory and on disk.
    private static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
