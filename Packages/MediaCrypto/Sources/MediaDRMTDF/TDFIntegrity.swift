import MediaDRMCrypto
import MediaDRMEncoding
import Foundation

/// Segment hashes and the root signature of `integrityInformation`.
///
/// Written as TDF 4.3.0 writers (the OpenTDF Go SDK, otdf-python) do: a GMAC segment hash is
/// base64 of the segment's raw 16-byte GCM tag, and the HS256 root signature is base64 of the raw
/// HMAC-SHA256(payload key, concatenation of the raw segment hashes). Legacy writers hex-encoded
/// both before base64 (and concatenated the hex texts); a reader accepts either, deciding by
/// the decoded length, and always concatenates the decoded hash bytes as stored.
enum TDFIntegrity {
    enum SegmentHashAlgorithm {
        case gmac
        case hs256

        init(manifestValue: String) throws(TDFError) {
            switch manifestValue.uppercased() {
            case "GMAC": self = .gmac
            case "HS256": self = .hs256
            default: throw TDFError(.unsupported, "segmentHashAlg \(manifestValue.prefix(32)) is not supported")
            }
        }
    }

    /// The raw hash of one encrypted segment (`nonce ‖ ct ‖ tag`).
    static func segmentHash(_ encryptedSegment: some Collection<UInt8>, algorithm: SegmentHashAlgorithm,
                            key: SecretKey) -> Data {
        switch algorithm {
        case .gmac: Data(encryptedSegment.suffix(TDFArchive.tagSize))
        case .hs256: HMACSHA256.authenticationCode(Data(encryptedSegment), key: key)
        }
    }

    /// The decoded bytes of a stored segment hash (the root signature covers exactly these).
    static func decodedHash(_ stored: String, index: Int) throws(TDFError) -> Data {
        do {
            return try Base64.decode(stored)
        } catch {
            throw TDFError(.malformedManifest, "segments[\(index)].hash is not canonical base64")
        }
    }

    static func rootSignature(over decodedHashes: Data, key: SecretKey, form: TDFBinding.Form) -> String {
        TDFBinding.encode(HMACSHA256.authenticationCode(decodedHashes, key: key), form: form)
    }

    static func isValidRootSignature(_ sig: String, over decodedHashes: Data, key: SecretKey) -> Bool {
        TDFBinding.matches(sig, mac: HMACSHA256.authenticationCode(decodedHashes, key: key), allowHex: true)
    }

    /// True when a stored segment hash (already base64-decoded) names this segment, raw or hex.
    static func segmentHashMatches(_ decoded: Data, computed: Data) -> Bool {
        if decoded.count == computed.count { return ConstantTime.equals(decoded, computed) }
        if decoded.count == computed.count * 2 {
            let lowered = decoded.map { byte -> UInt8 in (byte >= 0x41 && byte <= 0x46) ? byte + 0x20 : byte }
            return ConstantTime.equals(lowered, Array(Hex.encode(computed).utf8))
        }
        return false
    }
}

/// Names and sizes of the Standard TDF container.
public enum TDFArchive {
    public static let payloadEntryName = "0.payload"
    public static let manifestEntryName = "0.manifest.json"
    public static let nonceSize = 12
    public static let tagSize = 16
    /// Bytes an encrypted segment adds to its plaintext: nonce and tag.
    public static let segmentOverhead = nonceSize + tagSize
    public static let defaultSegmentSize = 2 << 20
    public static let defaultMimeType = "application/octet-stream"
}
