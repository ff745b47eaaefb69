import MediaDRMCrypto
import Foundation
import MediaDRMMP4

/// Encrypts and decrypts whole samples in place with ISO/IEC 23001-7 `cbcs`:
///
/// - video: the subsample map's protected ranges, each restarting the chain at the constant IV,
///   under the track's pattern (1:9 for fps-v2);
/// - audio (no subsamples): the whole sample as one protected range, every whole block encrypted
///   and the partial block at the end clear (pattern 1:0, or 0:0 as `tenc` version 0 gives it).
///
/// The one `cbcs` sample walk of the system: the packager encrypts with it, the client decrypts
/// with it, in place inside a fragment's `mdat` payload (`decrypt(_:sample:subsamples:)`) so no
/// sample is copied.
///
/// Not Sendable: the underlying cipher keeps chaining state.
public final class CBCSSampleCipher {
    public let pattern: AESCipher.CBCS.Pattern
    private let cipher: AESCipher.CBCS.Cipher

    /// `key` 16 bytes, `constantIV` 16 bytes.
    public init(key: SecretKey, constantIV: some DataProtocol, pattern: AESCipher.CBCS.Pattern) throws(CENCError) {
        do throws(CryptoError) {
            cipher = try AESCipher.CBCS.Cipher(key: key, constantIV: constantIV, pattern: pattern)
        } catch {
            throw CENCError(.crypto, "cbcs cipher refused: \(error.reason)")
        }
        self.pattern = pattern
    }

    /// From a track's `tenc`: protected, a per-sample IV size of 0, a 16-byte constant IV and its
    /// pattern (0:0 in version 0, meaning whole-block full-sample). Anything else is refused:
    /// `cbcs` as fps-v2 writes it uses a constant IV.
    public convenience init(key: SecretKey, trackEncryption tenc: TrackEncryptionBox) throws(CENCError) {
        guard tenc.defaultIsProtected == 1 else {
            throw CENCError(.invalidValue, "tenc marks the track as not protected")
        }
        guard tenc.defaultPerSampleIVSize == 0, let iv = tenc.defaultConstantIV else {
            throw CENCError(.unsupported, "tenc uses per-sample IVs; cbcs here needs a constant IV")
        }
        guard iv.count == 16 else {
            throw CENCError(.unsupported, "tenc constant IV is \(iv.count) bytes; 16 are required")
        }
        try self.init(key: key, constantIV: iv,
                      pattern: AESCipher.CBCS.Pattern(cryptByteBlock: Int(tenc.defaultCryptByteBlock),
                                                      skipByteBlock: Int(tenc.defaultSkipByteBlock)))
    }

    /// Encrypts `sample` in place. With subsamples (which must cover the sample exactly) each
    /// protected range is one pattern run from the constant IV; without, the whole sample is.
    public func encrypt(_ sample: inout [UInt8], subsamples: [CENCSubsample]) throws(CENCError) {
        try transform(&sample, subsamples: subsamples, encrypt: true)
    }

    /// Decrypts `sample` in place; the inverse of `encrypt(_:subsamples:)`.
    public func decrypt(_ sample: inout [UInt8], subsamples: [CENCSubsample]) throws(CENCError) {
        try transform(&sample, subsamples: subsamples, encrypt: false)
    }

    /// Decrypts `sample` in place as its `senc` entry describes it. The entry must carry no IV
    /// (the constant IV applies).
    public func decrypt(_ sample: inout [UInt8], entry: SampleEncryptionBox.Sample) throws(CENCError) {
        guard entry.initializationVector.isEmpty else {
            throw CENCError(.unsupported, "the senc entry carries a per-sample IV; cbcs here uses the constant IV")
        }
        try transform(&sample, subsamples: entry.subsamples, encrypt: false)
    }

    /// Decrypts in place the sample that occupies `sample` of `buffer` (a sample inside a
    /// fragment's `mdat` payload), as `subsamples` describe it; the sample must lie inside
    /// `buffer` and the subsamples must cover it exactly.
    public func decrypt(_ buffer: inout [UInt8], sample: Range<Int>, subsamples: [CENCSubsample]) throws(CENCError) {
        try transform(&buffer, sample: sample, subsamples: subsamples, encrypt: false)
    }

    private func transform(_ sample: inout [UInt8], subsamples: [CENCSubsample], encrypt: Bool) throws(CENCError) {
        try transform(&sample, sample: 0 ..< sample.count, subsamples: subsamples, encrypt: encrypt)
    }

    private func transform(_ buffer: inout [UInt8], sample: Range<Int>, subsamples: [CENCSubsample],
                           encrypt: Bool) throws(CENCError) {
        guard sample.lowerBound >= 0, sample.upperBound <= buffer.count else {
            throw CENCError(.invalidValue, "the sample \(sample) lies outside the \(buffer.count)-byte buffer")
        }
        if subsamples.isEmpty {
            if !sample.isEmpty { try run(&buffer, range: sample, encrypt: encrypt) }
            return
        }
        try CENCSubsample.validate(subsamples, sampleSize: sample.count)
        var offset = sample.lowerBound
        for subsample in subsamples {
            offset += Int(subsample.bytesOfClearData)
            let end = offset + Int(subsample.bytesOfProtectedData)
            if end > offset { try run(&buffer, range: offset ..< end, encrypt: encrypt) }
            offset = end
        }
    }

    private func run(_ sample: inout [UInt8], range: Range<Int>, encrypt: Bool) throws(CENCError) {
        do throws(CryptoError) {
            if encrypt {
                try cipher.encrypt(&sample, range: range)
            } else {
                try cipher.decrypt(&sample, range: range)
            }
        } catch {
            throw CENCError(.crypto, "cbcs transform failed: \(error.reason)")
        }
    }
}
