import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMZIP

/// Writes a Standard TDF: a ZIP holding `0.payload` (the AES-256-GCM segments, each
/// `nonce ‖ ciphertext ‖ tag`, written as they are produced) and then `0.manifest.json`, the
/// order the OpenTDF Go SDK and otdf-python use. An empty plaintext still gets one (empty)
/// segment, as the Go SDK writes it. The payload key is fresh for every archive.
public struct TDFWriter: Sendable {
    public let options: TDFEncryptOptions
    public let limits: TDFLimits

    public init(options: TDFEncryptOptions, limits: TDFLimits = .default) throws(TDFError) {
        guard options.segmentSize >= max(1, limits.minSegmentSize), options.segmentSize <= limits.maxSegmentSize else {
            throw TDFError(.invalidArgument, "segment size is outside the allowed range")
        }
        guard !options.kasURL.isEmpty else { throw TDFError(.invalidArgument, "the KAS URL is empty") }
        self.options = options
        self.limits = limits
    }

    /// Encrypts `plaintextSize` bytes obtained from `read` (called with the number of bytes
    /// wanted, returning at most that many; an empty result means the source ended) into `sink`.
    @discardableResult
    public func write(plaintextSize: Int64, read: (Int) throws -> Data, to sink: any ZIPSink) throws(TDFError) -> TDFManifest {
        guard plaintextSize >= 0, plaintextSize <= limits.maxPayloadBytes else {
            throw TDFError(.limitExceeded, "plaintext is larger than maxPayloadBytes")
        }
        let segmentSize = Int64(options.segmentSize)
        let segmentCount = max(1, (plaintextSize + segmentSize - 1) / segmentSize)
        guard segmentCount <= Int64(limits.maxSegments) else {
            throw TDFError(.limitExceeded, "plaintext needs more segments than maxSegments")
        }
        let payloadSize = plaintextSize + segmentCount * Int64(TDFArchive.segmentOverhead)

        let payloadKey: SecretKey
        do {
            payloadKey = try SecretKey(size: .bits256)
        } catch {
            throw TDFError(.cryptoFailure, "the random generator failed")
        }
        let policyBase64 = options.policy.base64
        let keyAccess = try KeyAccessObject.wrapping(
            payloadKey, to: options.kasPublicKey, kasURL: options.kasURL, kid: options.kid,
            policyBase64: policyBase64, bindingForm: options.bindingForm)

        var segments: [TDFManifest.Segment] = []
        segments.reserveCapacity(Int(segmentCount))
        var aggregate = Data()
        var firstNonce = Data()
        let zip = try zipCall { () throws(ZIPError) in
            try ZIPWriter(sink: sink, layout: .standard, allowZIP64: true)
        }
        try zipCall { () throws(ZIPError) in
            try zip.beginEntry(name: TDFArchive.payloadEntryName, method: .stored, uncompressedSize: UInt64(payloadSize))
        }
        var remaining = plaintextSize
        for _ in 0..<segmentCount {
            let wanted = Int(min(segmentSize, remaining))
            let chunk = try readExactly(wanted, from: read)
            remaining -= Int64(wanted)
            let box: AESCipher.GCM.SealedBox
            do {
                box = try AESCipher.GCM.seal(chunk, using: payloadKey)
            } catch {
                throw TDFError(.cryptoFailure, "AES-256-GCM seal of a segment failed")
            }
            let combined = box.combined
            if firstNonce.isEmpty { firstNonce = box.nonce.data }
            try zipCall { () throws(ZIPError) in try zip.write(combined) }
            let hash = box.tag
            aggregate.append(hash)
            segments.append(TDFManifest.Segment(hash: Base64.encode(hash), segmentSize: Int64(wanted),
                                                encryptedSegmentSize: Int64(combined.count)))
        }
        // A source longer than it said would otherwise be silently cut.
        if let extra = try? read(1), !extra.isEmpty {
            throw TDFError(.io, "the input grew while it was being encrypted")
        }
        try zipCall { () throws(ZIPError) in try zip.endEntry() }

        let manifest = TDFManifest(
            encryptionInformation: .init(
                type: "split", keyAccess: [keyAccess],
                method: .init(algorithm: "AES-256-GCM", isStreamable: true, iv: Base64.encode(firstNonce)),
                integrityInformation: .init(
                    rootSignature: .init(alg: "HS256",
                                         sig: TDFIntegrity.rootSignature(over: aggregate, key: payloadKey, form: .raw)),
                    segmentHashAlg: "GMAC", segmentSizeDefault: segmentSize,
                    encryptedSegmentSizeDefault: segmentSize + Int64(TDFArchive.segmentOverhead), segments: segments),
                policy: policyBase64),
            payload: .init(type: "reference", url: TDFArchive.payloadEntryName, protocol: "zip",
                           mimeType: options.mimeType, isEncrypted: true),
            schemaVersion: TDFManifest.schemaVersion430)
        let manifestData = manifest.jsonData()
        try zipCall { () throws(ZIPError) in
            try zip.addEntry(name: TDFArchive.manifestEntryName, data: manifestData, method: .stored)
            _ = try zip.finish()
        }
        return manifest
    }

    private func readExactly(_ count: Int, from read: (Int) throws -> Data) throws(TDFError) -> Data {
        var chunk = Data()
        chunk.reserveCapacity(count)
        while chunk.count < count {
            let part: Data
            do {
                part = try read(count - chunk.count)
            } catch {
                throw TDFError(.io, "reading the plaintext failed")
            }
            guard !part.isEmpty else { throw TDFError(.io, "the input ended before its announced size") }
            guard part.count <= count - chunk.count else { throw TDFError(.io, "the input returned more than asked") }
            chunk.append(part)
        }
        return chunk
    }
}

/// Maps a ZIP failure to a TDF error with the ZIP reason (which names no secret).
func zipCall<T>(_ body: () throws(ZIPError) -> T) throws(TDFError) -> T {
    do {
        return try body()
    } catch {
        switch error.code {
        case .io: throw TDFError(.io, "ZIP: \(error.reason)")
        case .limitExceeded, .tooManyEntries, .entryTooLarge: throw TDFError(.limitExceeded, "ZIP: \(error.reason)")
        default: throw TDFError(.malformedArchive, "ZIP: \(error.reason)")
        }
    }
}
