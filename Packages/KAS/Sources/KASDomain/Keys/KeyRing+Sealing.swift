import Foundation

/// `kas keys seal | unseal`: converts every private key file of the ring in place, one atomic
/// rename per file, so an interrupted run leaves each file whole in one form or the other; the
/// ring then refuses to load (`partlySealed`) until the same command is run again, which skips
/// the files already done. The seal check is written before the first file is sealed and
/// removed after the last one is unsealed, so "sealed" is never claimed for a ring holding a
/// plain key, and never denied for one holding a sealed key.
extension KeyRing {
    public struct SealChange: Sendable {
        public let ring: KeyRing
        /// How many key files this run converted (0 when the ring already was in that form).
        public let converted: Int
    }

    /// Seals the ring under `sealKey`. On a ring already (partly) sealed, `sealKey` must be the
    /// key it was sealed with.
    @discardableResult
    public static func seal(dataDirectory: String, sealKey: KeyRingSealKey) throws(KeyRingError) -> SealChange {
        try convert(dataDirectory, sealKey) { () throws(KeyRingError) in
            if !KeyRingSeal.isSealed(dataDirectory) { try KeyRingSeal.writeCheck(sealKey, dataDirectory) }
        } file: { (bytes, kid) throws(KeyRingError) -> Data? in
            if SealedKeyFile.isPlain(bytes) { return try SealedKeyFile.seal(bytes, name: kid, with: sealKey) }
            // Sealed by an earlier, interrupted run: it must open under this key too (a damaged
            // file does not, and is never taken for a plain key to seal).
            _ = try SealedKeyFile.open(bytes, name: kid, with: sealKey, failure: KeyRingSeal.modifiedFile)
            return nil
        } finish: { () throws(KeyRingError) -> KeyRing in
            try load(dataDirectory: dataDirectory, sealKey: sealKey)
        }
    }

    /// Writes every key file back as the exact PEM bytes it was sealed from, then drops the seal
    /// check.
    @discardableResult
    public static func unseal(dataDirectory: String, sealKey: KeyRingSealKey) throws(KeyRingError) -> SealChange {
        try convert(dataDirectory, sealKey) { () throws(KeyRingError) in
            // Nothing before the files: the seal check goes last.
        } file: { (bytes, kid) throws(KeyRingError) -> Data? in
            guard SealedKeyFile.isSealed(bytes) else { return nil }
            return Data(try SealedKeyFile.open(bytes, name: kid, with: sealKey, failure: KeyRingSeal.modifiedFile))
        } finish: { () throws(KeyRingError) -> KeyRing in
            if KeyRingSeal.isSealed(dataDirectory) { try SecureFiles.remove(KeyRingSeal.checkPath(dataDirectory)) }
            return try load(dataDirectory: dataDirectory)
        }
    }

    /// Under the ring's lock: checks `sealKey` against a present seal check, runs `start`, then
    /// rewrites each key file `file` returns new bytes for (nil: already converted), then `finish`.
    private static func convert(
        _ dataDirectory: String, _ sealKey: KeyRingSealKey, start: () throws(KeyRingError) -> Void,
        file: (_ bytes: [UInt8], _ kid: String) throws(KeyRingError) -> Data?, finish: () throws(KeyRingError) -> KeyRing
    ) throws(KeyRingError) -> SealChange {
        let directory = try existingKeysDirectory(dataDirectory)
        return try SecureFiles.withExclusiveLock(in: directory) { () throws(KeyRingError) -> SealChange in
            let index = try readIndex(dataDirectory, missing: notInitialized(dataDirectory))
            if KeyRingSeal.isSealed(dataDirectory) { try KeyRingSeal.verify(sealKey, dataDirectory) }
            try start()
            var converted = 0
            for kid in privateKeyKids(index) {
                let path = keyPath(dataDirectory, kid: kid)
                let bytes = try SecureFiles.read(path, privateFile: true,
                                                 missing: KeyRingError(.corruptKey, "key file '\(path)' is missing"))
                guard let replacement = try file(bytes, kid) else { continue }
                try SecureFiles.writeAtomically(replacement, to: path, mode: 0o600)
                converted += 1
            }
            return SealChange(ring: try finish(), converted: converted)
        }
    }

    /// Every kid with a private key file: key-access keys, the dev issuer, licence signers.
    private static func privateKeyKids(_ index: KeyRingIndex) -> [String] {
        index.entries.map(\.kid) + (index.devIssuer.map { [$0.kid] } ?? []) + index.licenseSigners.entries.map(\.kid)
    }
}
