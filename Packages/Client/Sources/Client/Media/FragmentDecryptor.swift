import Foundation
import MediaDRMCENC
import MediaDRMCrypto
import MediaDRMMP4

/// Decrypts the media segments of one init segment's tracks, one segment at a time, and
/// rewrites their fragments as clear: `senc`, `saiz`, `saio` and `seig` sample groups removed,
/// `pssh` removed, data offsets and sizes recomputed when serialised.
///
/// Each protected sample is decrypted in place as its `senc` entry says (ISO/IEC 23001-7 `cbcs`:
/// each protected range restarts the chain at the IV, under the track's pattern), by the same
/// `CBCSSampleCipher` the packager encrypts with. Before any
/// byte is touched, every sample is checked to lie inside its fragment's `mdat`, the `senc`
/// count to equal the runs' sample count and every subsample map to cover its sample exactly.
///
/// A wrong key cannot be detected: `cbcs` has no integrity check, so a wrong key yields
/// garbage samples, not an error. Callers match keys to tracks (by `tenc` KID or by component).
///
/// Not Sendable: the ciphers keep chaining state, and tracks' decode times carry over from one
/// segment to the next.
public final class FragmentDecryptor {
    public let initSegment: ClearInitSegment
    private var reader: FragmentReader
    private let ciphers: [UInt32: CBCSSampleCipher]
    private let keys: [UInt32: SecretKey]

    /// `keys` by `track_ID`: one 16-byte key for every protected track of `initSegment`.
    public init(initSegment: ClearInitSegment, keys: [UInt32: SecretKey]) throws(MediaError) {
        var ciphers: [UInt32: CBCSSampleCipher] = [:]
        for (trackID, protection) in initSegment.protections {
            guard let key = keys[trackID] else {
                throw MediaError(.keyMismatch, "no key for protected track \(trackID)")
            }
            guard key.byteCount == 16 else {
                throw MediaError(.keyMismatch, "the key for track \(trackID) is not 16 bytes")
            }
            if let iv = protection.constantIV, protection.perSampleIVSize == 0 {
                ciphers[trackID] = try Self.cipher(key: key, iv: iv, protection: protection)
            }
        }
        self.initSegment = initSegment
        self.ciphers = ciphers
        self.keys = keys
        reader = FragmentReader(initSegment: initSegment)
    }

    /// Every protected track of `initSegment` with the one `key`.
    public convenience init(initSegment: ClearInitSegment, key: SecretKey) throws(MediaError) {
        var keys: [UInt32: SecretKey] = [:]
        for trackID in initSegment.protections.keys { keys[trackID] = key }
        try self.init(initSegment: initSegment, keys: keys)
    }

    /// The clear fragments of one media segment (one or more `moof`+`mdat` pairs).
    public func decryptSegment(_ bytes: [UInt8]) throws(MediaError) -> [MediaFragment] {
        var fragments = try reader.fragments(in: bytes)
        for index in fragments.indices {
            // Moved out and back, so the payload is decrypted in its own storage, not a copy.
            var data = fragments[index].mediaData
            fragments[index].mediaData = []
            fragments[index].movieFragment = try decrypt(fragments[index], data: &data, payloadStart: 0)
            fragments[index].mediaData = data
        }
        return fragments
    }

    /// The clear segment: its fragments serialised with recomputed offsets.
    public func clearSegment(_ bytes: [UInt8]) throws(MediaError) -> [UInt8] {
        var out: [UInt8] = []
        for fragment in try decryptSegment(bytes) { out += try fragment.serializedBytes() }
        return out
    }

    /// The clear segment written to `output` fragment by fragment: each `moof` and `mdat` header,
    /// then the decrypted `mdat` payload as it lies in memory, never copied into one buffer.
    /// The whole segment is decrypted and checked before the first byte is written.
    /// `bytes` is decrypted in place (it is the caller's reusable read buffer) and each payload
    /// written straight from it.
    public func writeClearSegment(_ bytes: inout [UInt8], to output: some MediaOutput) throws(MediaError) {
        let fragments = try reader.fragmentsInPlace(in: bytes)
        var heads: [[UInt8]] = []
        heads.reserveCapacity(fragments.count)
        for (fragment, payload) in fragments {
            var clear = fragment
            clear.movieFragment = try decrypt(fragment, data: &bytes, payloadStart: payload.lowerBound)
            heads.append(try clear.serializedHead(payloadCount: payload.count))
        }
        for (index, head) in heads.enumerated() {
            try output.write(head)
            let payload = fragments[index].payload
            let failure = bytes.withUnsafeBytes { (all: UnsafeRawBufferPointer) -> MediaError? in
                do throws(MediaError) {
                    try output.write(UnsafeRawBufferPointer(rebasing: all[payload]))
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
        }
    }

    /// Decrypts the fragment's samples in `data`, whose payload starts at `payloadStart`, and
    /// returns its clear `moof`.
    private func decrypt(_ fragment: MediaFragment, data: inout [UInt8], payloadStart: Int) throws(MediaError) -> MovieFragmentBox {
        var moof = fragment.movieFragment
        moof.children.removeAll(ProtectionSystemSpecificHeaderBox.self)
        // Validate every traf before decrypting any byte, so a refused fragment is left as it was.
        var plans: [(TrackProtection, SampleEncryptionBox)?] = []
        var trafIndex = 0
        for index in moof.children.boxes.indices {
            guard var traf = moof.children.boxes[index] as? TrackFragmentBox else { continue }
            let resolved = fragment.trackFragments[trafIndex]
            plans.append(try plan(traf, resolved))
            traf.children.removeAll(SampleEncryptionBox.self)
            traf.children.removeAll(SampleAuxiliaryInformationSizesBox.self)
            traf.children.removeAll(SampleAuxiliaryInformationOffsetsBox.self)
            traf.children.boxes.removeAll(where: SampleGroupBoxes.isEncryptionGroup)
            if traf.decodeTime == nil {
                // Carried over from the track's previous fragment, so the clear output is explicit.
                let after = (traf.children.boxes.firstIndex(where: { $0 is TrackFragmentHeaderBox }) ?? -1) + 1
                traf.children.boxes.insert(TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: resolved.baseMediaDecodeTime),
                                           at: after)
            }
            moof.children.boxes[index] = traf
            trafIndex += 1
        }
        for (index, plan) in plans.enumerated() {
            guard let (protection, senc) = plan else { continue }
            let samples = fragment.trackFragments[index].samples
            for (sampleIndex, sample) in samples.enumerated() {
                try decryptSample(&data, payloadStart + sample.offset, sample.size, senc.samples[sampleIndex], protection)
            }
        }
        return moof
    }

    /// The protection and `senc` of a protected traf whose maps check out; nil for a clear track.
    private func plan(_ traf: TrackFragmentBox, _ resolved: TrackFragmentSamples) throws(MediaError) -> (TrackProtection, SampleEncryptionBox)? {
        let trackID = resolved.trackID
        if traf.children.boxes.contains(where: { SampleGroupBoxes.groupingType(of: $0) == SampleGroupBoxes.seig }) {
            throw MediaError(.unsupported, "track \(trackID): 'seig' sample groups are not supported")
        }
        guard let protection = initSegment.protections[trackID], protection.trackEncryption.defaultIsProtected == 1 else {
            return nil
        }
        guard let senc = traf.sampleEncryption else {
            if traf.auxiliaryInformationOffsets != nil {
                throw MediaError(.unsupported, "track \(trackID): sample auxiliary information without 'senc' is not supported")
            }
            throw MediaError(.missingBox, "track \(trackID): protected 'traf' without 'senc'")
        }
        guard senc.samples.count == resolved.samples.count else {
            throw MediaError(.invalidSubsamples,
                             "track \(trackID): 'senc' lists \(senc.samples.count) samples, the runs \(resolved.samples.count)")
        }
        for (index, entry) in senc.samples.enumerated() {
            guard entry.initializationVector.count == protection.perSampleIVSize else {
                throw MediaError(.malformed, "track \(trackID): 'senc' IV size differs from 'tenc'")
            }
            guard !entry.subsamples.isEmpty else { continue }
            var total = 0
            for subsample in entry.subsamples {
                total += Int(subsample.bytesOfClearData) + Int(subsample.bytesOfProtectedData)
            }
            guard total == resolved.samples[index].size else {
                throw MediaError(.invalidSubsamples,
                                 "track \(trackID) sample \(index): subsamples cover \(total) bytes of a \(resolved.samples[index].size)-byte sample")
            }
        }
        return (protection, senc)
    }

    private func decryptSample(_ data: inout [UInt8], _ sampleOffset: Int, _ sampleSize: Int, _ entry: SampleEncryptionBox.Sample,
                               _ protection: TrackProtection) throws(MediaError) {
        let trackID = protection.trackID
        var cipher = ciphers[trackID]
        if !entry.initializationVector.isEmpty || cipher == nil {
            // Per-sample IVs need a cipher per sample; fps-v2 and Shaka's cbcs use a constant IV.
            guard let key = keys[trackID] else { throw MediaError(.keyMismatch, "no key for protected track \(trackID)") }
            cipher = try Self.cipher(key: key, iv: entry.initializationVector, protection: protection)
        }
        guard let cipher else { throw MediaError(.crypto, "track \(trackID): no cipher") }
        do throws(CENCError) {
            try cipher.decrypt(&data, sample: sampleOffset ..< sampleOffset + sampleSize, subsamples: entry.subsamples)
        } catch {
            throw MediaError(.crypto, "track \(trackID): \(error.reason)")
        }
    }

    private static func cipher(key: SecretKey, iv: some DataProtocol, protection: TrackProtection) throws(MediaError) -> CBCSSampleCipher {
        do throws(CENCError) {
            return try CBCSSampleCipher(key: key, constantIV: iv, pattern: protection.pattern)
        } catch {
            throw MediaError(.crypto, "track \(protection.trackID): \(error.reason)")
        }
    }
}
