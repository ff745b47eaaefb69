import MediaDRMCrypto
import MediaDRMMP4

/// What an encrypted track's `sinf` said, kept after its init segment was rewritten to clear:
/// enough to decrypt its fragments.
public struct TrackProtection: Sendable, Equatable {
    public let trackID: UInt32
    /// The sample entry type before protection (`avc1`, `mp4a`).
    public let originalFormat: FourCC
    /// `cbcs` (the only scheme the decryptor accepts).
    public let scheme: FourCC
    /// `tenc` default_KID (16 bytes; fps-v2 allows all zeros).
    public let keyID: [UInt8]
    /// 0 with a constant IV, else 16 (`cbcs` IVs are 16 bytes).
    public let perSampleIVSize: Int
    /// 16 bytes when `perSampleIVSize` is 0.
    public let constantIV: [UInt8]?
    /// From `tenc` version 1; 0:0 (version 0) means every whole block of the range.
    public let pattern: AESCipher.CBCS.Pattern
    /// The `tenc` as read.
    public let trackEncryption: TrackEncryptionBox

    public init(trackID: UInt32, originalFormat: FourCC, scheme: FourCC, trackEncryption tenc: TrackEncryptionBox) {
        self.trackID = trackID
        self.originalFormat = originalFormat
        self.scheme = scheme
        keyID = tenc.defaultKID
        perSampleIVSize = Int(tenc.defaultPerSampleIVSize)
        constantIV = tenc.defaultConstantIV
        pattern = AESCipher.CBCS.Pattern(cryptByteBlock: Int(tenc.defaultCryptByteBlock),
                                         skipByteBlock: Int(tenc.defaultSkipByteBlock))
        trackEncryption = tenc
    }
}
