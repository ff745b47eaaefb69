import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMZIP

/// Reads a Standard TDF with random access to its ZIP.
///
/// Opening parses `0.manifest.json` strictly and the policy, and checks the layout before any
/// payload byte is read: algorithms supported, every segment's sizes within the limits and
/// consistent (`encryptedSegmentSize` = `segmentSize` + 28), and the segments exactly covering
/// the payload entry. Decryption verifies the root signature first, then each segment's hash and
/// GCM tag; the in-memory call returns plaintext only when all of them verified, the file call
/// writes a temporary file and renames it only then.
public final class TDFArchiveReader: Sendable {
    public let manifest: TDFManifest
    /// The exact bytes of `0.manifest.json` (what a KAS key request forwards).
    public let manifestData: Data
    public let policy: TDFPolicy
    public let limits: TDFLimits

    private let source: any ZIPRandomAccessSource
    private let payloadOffset: UInt64
    private let segmentHashAlgorithm: TDFIntegrity.SegmentHashAlgorithm
    private let decodedHashes: [Data]

    /// The plaintext MIME type (`application/octet-stream` when the manifest names none).
    public var mimeType: String { manifest.payload.mimeType ?? TDFArchive.defaultMimeType }

    /// Total plaintext size declared by the segments (already checked against the limits).
    public var plaintextSize: Int64 {
        manifest.encryptionInformation.integrityInformation.segments.reduce(0) { $0 + $1.segmentSize }
    }

    public convenience init(url: URL, limits: TDFLimits = .default) throws(TDFError) {
        let source = try zipCall { () throws(ZIPError) in try ZIPFileSource(url: url) }
        try self.init(source: source, limits: limits)
    }

    public convenience init(data: some DataProtocol, limits: TDFLimits = .default) throws(TDFError) {
        try self.init(source: ZIPMemorySource(data), limits: limits)
    }

    public init(source: any ZIPRandomAccessSource, limits: TDFLimits = .default) throws(TDFError) {
        self.limits = limits
        // The payload is one entry holding every segment; the ZIP bounds follow the TDF ones.
        var zipLimits = ZIPLimits.default
        let payloadBound = UInt64(max(0, limits.maxPayloadBytes))
            + UInt64(max(0, limits.maxSegments)) * UInt64(TDFArchive.segmentOverhead)
        zipLimits.maxEntrySize = max(payloadBound, UInt64(max(0, limits.maxManifestBytes)))
        zipLimits.maxTotalUncompressed = payloadBound + UInt64(max(0, limits.maxManifestBytes))
        let zip = try zipCall { () throws(ZIPError) in try ZIPReader(source: source, limits: zipLimits) }
        guard let manifestEntry = zip.entry(named: TDFArchive.manifestEntryName) else {
            throw TDFError(.malformedArchive, "the archive has no \(TDFArchive.manifestEntryName)")
        }
        guard manifestEntry.uncompressedSize <= UInt64(limits.maxManifestBytes) else {
            throw TDFError(.limitExceeded, "manifest is larger than maxManifestBytes")
        }
        let manifestData = try zipCall { () throws(ZIPError) in try zip.read(manifestEntry) }
        let manifest = try TDFManifest(parsing: manifestData, limits: limits)
        self.manifestData = manifestData
        self.manifest = manifest
        self.policy = try TDFPolicy(base64: manifest.encryptionInformation.policy, limits: limits)

        let info = manifest.encryptionInformation
        guard info.type == "split" else {
            throw TDFError(.unsupported, "encryptionInformation.type is not split")
        }
        guard info.method.algorithm == "AES-256-GCM" else {
            throw TDFError(.unsupported, "method.algorithm is not AES-256-GCM")
        }
        let payload = manifest.payload
        guard payload.type == "reference", payload.protocol == "zip" || payload.protocol == "zipstream" else {
            throw TDFError(.unsupported, "payload is not a zip reference")
        }
        guard payload.isEncrypted else { throw TDFError(.unsupported, "payload.isEncrypted is false") }
        guard let payloadEntry = zip.entry(named: payload.url) else {
            throw TDFError(.malformedArchive, "the archive has no entry named by payload.url")
        }

        let integrity = info.integrityInformation
        guard integrity.rootSignature.alg == "HS256" else {
            throw TDFError(.unsupported, "rootSignature.alg is not HS256")
        }
        self.segmentHashAlgorithm = try TDFIntegrity.SegmentHashAlgorithm(manifestValue: integrity.segmentHashAlg)

        var encryptedTotal: UInt64 = 0
        var plainTotal: Int64 = 0
        var hashes: [Data] = []
        hashes.reserveCapacity(integrity.segments.count)
        for (index, segment) in integrity.segments.enumerated() {
            guard segment.segmentSize <= Int64(limits.maxSegmentSize) else {
                throw TDFError(.limitExceeded, "segments[\(index)].segmentSize is above maxSegmentSize")
            }
            guard segment.encryptedSegmentSize == segment.segmentSize + Int64(TDFArchive.segmentOverhead) else {
                throw TDFError(.malformedManifest, "segments[\(index)].encryptedSegmentSize is not segmentSize + 28")
            }
            plainTotal += segment.segmentSize
            guard plainTotal <= limits.maxPayloadBytes else {
                throw TDFError(.limitExceeded, "segments add up to more than maxPayloadBytes")
            }
            encryptedTotal += UInt64(segment.encryptedSegmentSize)
            hashes.append(try TDFIntegrity.decodedHash(segment.hash, index: index))
        }
        guard encryptedTotal == payloadEntry.uncompressedSize else {
            throw TDFError(.integrityFailure, "the segments do not add up to the payload size")
        }
        self.decodedHashes = hashes

        switch payloadEntry.compressionMethod {
        case .stored:
            self.source = source
            self.payloadOffset = try zipCall { () throws(ZIPError) in try zip.dataRange(for: payloadEntry).lowerBound }
        case .deflate:
            // Not what SDKs write; inflate once, bounded, and read segments from memory.
            guard payloadEntry.uncompressedSize <= UInt64(limits.maxInMemoryBytes) else {
                throw TDFError(.limitExceeded, "a compressed payload is larger than maxInMemoryBytes")
            }
            let inflated = try zipCall { () throws(ZIPError) in try zip.read(payloadEntry) }
            self.source = ZIPMemorySource(inflated)
            self.payloadOffset = 0
        }
    }

    // MARK: Keys

    /// Unwraps the payload key with the KAS private key (the offline key holder's path).
    /// Key access objects are grouped by `sid`; from each group the first one this key unwraps
    /// is used, its policy binding must verify, and the groups' keys are XORed (a single group
    /// gives the key itself). The result must be 32 bytes.
    public func payloadKey(unwrapWith privateKey: KASPrivateKey) throws(TDFError) -> SecretKey {
        let info = manifest.encryptionInformation
        var groups: [String] = []
        var members: [String: [KeyAccessObject]] = [:]
        for object in info.keyAccess {
            let sid = object.sid ?? ""
            if members[sid] == nil { groups.append(sid) }
            members[sid, default: []].append(object)
        }
        var key = [UInt8](repeating: 0, count: 32)
        for sid in groups {
            var split: SecretKey?
            var lastError = TDFError(.keyUnwrapFailure, "no key access object unwraps with this private key")
            for object in members[sid] ?? [] {
                do throws(TDFError) {
                    let candidate = try object.unwrap(with: privateKey)
                    guard object.isPolicyBindingValid(policyBase64: info.policy, key: candidate) else {
                        throw TDFError(.bindingMismatch, "the policy binding does not verify under the unwrapped key")
                    }
                    split = candidate
                    break
                } catch {
                    if error.code == .bindingMismatch || error.code == .malformedManifest { throw error }
                    lastError = error
                }
            }
            guard let split else { throw lastError }
            guard split.byteCount == 32 else {
                throw TDFError(.keyUnwrapFailure, "the unwrapped key is not 32 bytes")
            }
            split.withUnsafeBytes { bytes in
                for index in 0..<32 { key[index] ^= bytes[index] }
            }
        }
        return SecretKey(data: key)
    }

    /// Checks every key access object's policy binding against its own key (for a caller that
    /// holds per-object keys, such as a KAS after unwrapping).
    public func isPolicyBindingValid(_ object: KeyAccessObject, key: SecretKey) -> Bool {
        object.isPolicyBindingValid(policyBase64: manifest.encryptionInformation.policy, key: key)
    }

    // MARK: Integrity

    /// Verifies the root signature over the manifest's segment hashes. Needs no payload bytes.
    public func verifyRootSignature(payloadKey: SecretKey) throws(TDFError) {
        var aggregate = Data()
        for hash in decodedHashes { aggregate.append(hash) }
        let sig = manifest.encryptionInformation.integrityInformation.rootSignature.sig
        guard TDFIntegrity.isValidRootSignature(sig, over: aggregate, key: payloadKey) else {
            throw TDFError(.integrityFailure, "the root signature does not verify")
        }
    }

    /// Reads, checks and decrypts every segment in order, handing each plaintext to `body`.
    /// The root signature is verified before the first segment is read.
    private func forEachSegment(payloadKey: SecretKey, _ body: (Data) throws(TDFError) -> Void) throws(TDFError) {
        guard payloadKey.byteCount == 32 else {
            throw TDFError(.invalidArgument, "the payload key is not 32 bytes")
        }
        try verifyRootSignature(payloadKey: payloadKey)
        var offset = payloadOffset
        let segments = manifest.encryptionInformation.integrityInformation.segments
        for (index, segment) in segments.enumerated() {
            let count = Int(segment.encryptedSegmentSize)
            let start = offset
            let encrypted: [UInt8]
            do {
                encrypted = try source.read(offset: start, count: count)
            } catch {
                throw TDFError(.io, "reading segment \(index) failed")
            }
            guard encrypted.count == count else { throw TDFError(.integrityFailure, "segment \(index) is truncated") }
            offset += UInt64(count)
            let computed = TDFIntegrity.segmentHash(encrypted, algorithm: segmentHashAlgorithm, key: payloadKey)
            guard index < decodedHashes.count, TDFIntegrity.segmentHashMatches(decodedHashes[index], computed: computed) else {
                throw TDFError(.integrityFailure, "segment \(index) does not match its hash")
            }
            let plaintext: Data
            do {
                let box = try AESCipher.GCM.SealedBox(combined: encrypted)
                plaintext = try AESCipher.GCM.open(box, using: payloadKey)
            } catch {
                throw TDFError(.integrityFailure, "segment \(index) does not authenticate")
            }
            guard plaintext.count == Int(segment.segmentSize) else {
                throw TDFError(.integrityFailure, "segment \(index) has the wrong plaintext size")
            }
            try body(plaintext)
        }
    }

    // MARK: Decrypt

    /// Decrypts the whole payload in memory; returns only after every check passed.
    public func decrypt(payloadKey: SecretKey) throws(TDFError) -> Data {
        guard plaintextSize <= Int64(limits.maxInMemoryBytes) else {
            throw TDFError(.limitExceeded, "plaintext is larger than maxInMemoryBytes")
        }
        var output = Data()
        output.reserveCapacity(Int(plaintextSize))
        try forEachSegment(payloadKey: payloadKey) { (plaintext: Data) throws(TDFError) in output.append(plaintext) }
        return output
    }

    /// Decrypts to `url` through a temporary file in the same directory, renamed over `url` only
    /// after every segment and the root signature verified; on failure nothing is left behind.
    public func decrypt(payloadKey: SecretKey, to url: URL) throws(TDFError) {
        let file = try zipCall { () throws(ZIPError) in try ZIPAtomicFile(path: url.path) }
        do {
            try forEachSegment(payloadKey: payloadKey) { (plaintext: Data) throws(TDFError) in
                do {
                    try plaintext.withUnsafeBytes { try file.sink.write($0) }
                } catch {
                    throw TDFError(.io, "writing the output file failed")
                }
            }
            try zipCall { () throws(ZIPError) in try file.commit() }
        } catch {
            file.discard()
            throw error
        }
    }
}
