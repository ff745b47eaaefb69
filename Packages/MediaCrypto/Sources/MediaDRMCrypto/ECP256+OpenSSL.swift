import COpenSSL
import Foundation

enum P256Backend {
    enum PrivateFormat { case pkcs8, sec1 }
    enum PointForm { case x963, compressed, raw }

    /// DER of the prime256v1 OID, the body of the "EC PARAMETERS" block `openssl ecparam` writes.
    private static let namedCurveParameters: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    /// The fixed DER header of a SubjectPublicKeyInfo for id-ecPublicKey on prime256v1 with a
    /// 65-byte uncompressed point: SEQUENCE(89) { SEQUENCE(19) { OID 1.2.840.10045.2.1,
    /// OID 1.2.840.10045.3.1.7 }, BIT STRING(66) 00 ‖ point }. Such keys (nearly all of them) are
    /// read and written without OSSL_DECODER/OSSL_ENCODER, whose per-call setup cost a key
    /// request 19 % and 9 % of its CPU.
    static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]
    static let spkiByteCount = 26 + 65

    static func generate() throws(CryptoError) -> OpenSSLKey {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, cString("EC"), nil) else {
            throw openSSLFailure(.backend, "EC key generation context allocation failed")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(ctx) == 1,
              EVP_PKEY_CTX_set_group_name(ctx, cString("prime256v1")) == 1,
              EVP_PKEY_generate(ctx, &pkey) == 1,
              let made = pkey else {
            if let partial = pkey { EVP_PKEY_free(partial) }
            throw openSSLFailure(.backend, "P-256 key generation failed")
        }
        // OpenSSL made this key on prime256v1 from a fresh scalar: the curve, point and pairwise
        // checks `accept` runs on imported keys (two scalar multiplications) prove nothing here.
        let key = OpenSSLKey(taking: made)
        try setUncompressedPointFormat(key)
        return key
    }

    static func importPrivatePEM(_ text: String) throws(CryptoError) -> OpenSSLKey {
        let blocks = try PEM.blocks(text)
        let keyBlock: PEMBlock
        switch blocks.count {
        case 1:
            keyBlock = blocks[0]
        case 2:
            guard blocks[0].label == "EC PARAMETERS", blocks[1].label == "EC PRIVATE KEY" else {
                throw CryptoError(.invalidKeyEncoding, "PEM text must hold exactly one key block")
            }
            guard blocks[0].der == namedCurveParameters else {
                throw CryptoError(.weakKey, "EC PARAMETERS name a curve other than P-256")
            }
            keyBlock = blocks[1]
        default:
            throw CryptoError(.invalidKeyEncoding, "PEM text must hold exactly one key block")
        }
        switch keyBlock.label {
        case "PRIVATE KEY": return try importPrivate(der: keyBlock.der, formats: [.pkcs8])
        case "EC PRIVATE KEY": return try importPrivate(der: keyBlock.der, formats: [.sec1])
        default: throw CryptoError(.invalidKeyEncoding, "PEM label is not one this key type accepts")
        }
    }

    static func importPrivate(der: [UInt8], formats: [PrivateFormat]) throws(CryptoError) -> OpenSSLKey {
        let shape = try DERFrame.shape(der)
        for format in formats {
            let (structure, expected): (StaticString, DERFrame.Shape) = format == .pkcs8
                ? ("PrivateKeyInfo", .privateKeyInfo) : ("type-specific", .ecPrivateKey)
            guard shape == expected else { continue }
            if let key = OpenSSLKey.decode(der: der, structure: structure, keyType: "EC", selection: .keyPair) {
                return try accept(key, hasPrivate: true)
            }
        }
        throw CryptoError(.invalidKeyEncoding, "not an EC private key in PKCS#8 or SEC1 DER")
    }

    static func importPublicPEM(_ text: String) throws(CryptoError) -> OpenSSLKey {
        let block = try PEM.decode(text, labels: ["PUBLIC KEY"])
        return try importPublic(der: block.der)
    }

    static func importPublic(der: [UInt8]) throws(CryptoError) -> OpenSSLKey {
        try DERFrame.require(der, shape: .subjectPublicKeyInfo)
        if der.count == spkiByteCount, der.starts(with: spkiPrefix) {
            // Exactly the P-256 uncompressed form: the point goes through the same checks as an
            // x963 import (on the curve, not infinity). Anything else takes the general decoder.
            return try importPoint(Array(der[spkiPrefix.count...]), form: .x963)
        }
        return try importPublicGeneral(der: der)
    }

    /// Every SPKI through OSSL_DECODER (compressed points, explicit parameters, other curves, to
    /// be refused or accepted by OpenSSL's rules). Tests compare it with the fast path.
    static func importPublicGeneral(der: [UInt8]) throws(CryptoError) -> OpenSSLKey {
        try DERFrame.require(der, shape: .subjectPublicKeyInfo)
        guard let key = OpenSSLKey.decode(der: der, structure: "SubjectPublicKeyInfo", keyType: "EC", selection: .publicKey) else {
            throw CryptoError(.invalidKeyEncoding, "not an EC public key in SubjectPublicKeyInfo DER")
        }
        return try accept(key, hasPrivate: false)
    }

    static func importPoint(_ bytes: [UInt8], form: PointForm) throws(CryptoError) -> OpenSSLKey {
        let encoded: [UInt8]
        switch form {
        case .x963:
            guard bytes.count == 65, bytes.first == 0x04 else {
                throw CryptoError(.invalidKeyEncoding, "an x963 P-256 point is 0x04 followed by 64 bytes")
            }
            encoded = bytes
        case .compressed:
            guard bytes.count == 33, let first = bytes.first, first == 0x02 || first == 0x03 else {
                throw CryptoError(.invalidKeyEncoding, "a compressed P-256 point is 0x02 or 0x03 followed by 32 bytes")
            }
            encoded = bytes
        case .raw:
            guard bytes.count == 64 else {
                throw CryptoError(.invalidKeyEncoding, "a raw P-256 point is 64 bytes (X then Y)")
            }
            encoded = [0x04] + bytes
        }
        let params = ParamBuilder()
        params.push("group", utf8: "prime256v1")
        params.push("pub", octets: encoded)
        // OpenSSL's point decoding refuses coordinates that are not on the curve.
        guard let key = OpenSSLKey.fromData(keyType: "EC", selection: .publicKey, params: params) else {
            throw CryptoError(.invalidKeyEncoding, "the point is not on the P-256 curve")
        }
        return try accept(key, hasPrivate: false)
    }

    static func importRawPrivate(_ scalar: [UInt8]) throws(CryptoError) -> OpenSSLKey {
        guard scalar.count == ECP256.coordinateByteCount else {
            throw CryptoError(.invalidKeyEncoding, "a raw P-256 private key is 32 bytes")
        }
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw openSSLFailure(.backend, "P-256 group allocation failed")
        }
        defer { EC_GROUP_free(group) }
        guard let d = BN_secure_new() else { throw openSSLFailure(.backend, "BIGNUM allocation failed") }
        defer { BN_clear_free(d) }
        let converted = scalar.withUnsafeBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bin2bn(base, Int32(buffer.count), d) != nil
        }
        guard converted, let order = EC_GROUP_get0_order(group) else {
            throw openSSLFailure(.backend, "P-256 scalar conversion failed")
        }
        guard BN_is_zero(d) == 0, BN_cmp(d, order) < 0 else {
            throw CryptoError(.invalidKeyEncoding, "a P-256 private scalar must be between 1 and the group order")
        }
        guard let point = EC_POINT_new(group) else { throw openSSLFailure(.backend, "EC point allocation failed") }
        defer { EC_POINT_free(point) }
        var publicPoint = [UInt8](repeating: 0, count: 65)
        let written = publicPoint.withUnsafeMutableBufferPointer { out -> Int in
            guard let base = out.baseAddress, EC_POINT_mul(group, point, d, nil, nil, nil) == 1 else { return 0 }
            return EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, base, out.count, nil)
        }
        guard written == 65 else { throw openSSLFailure(.backend, "P-256 public point computation failed") }
        let params = ParamBuilder()
        params.push("group", utf8: "prime256v1")
        params.push("pub", octets: publicPoint)
        params.push("priv", unsignedBigEndian: scalar, secret: true)
        guard let key = OpenSSLKey.fromData(keyType: "EC", selection: .keyPair, params: params) else {
            throw CryptoError(.invalidKeyEncoding, "the scalar does not form a P-256 key")
        }
        return try accept(key, hasPrivate: true)
    }

    /// Curve and point checks every P-256 key passes, whatever its encoding. Exports always use
    /// uncompressed points, whatever form the key arrived in.
    private static func accept(_ pkey: OpaquePointer, hasPrivate: Bool) throws(CryptoError) -> OpenSSLKey {
        try accept(OpenSSLKey(taking: pkey), hasPrivate: hasPrivate)
    }

    private static func accept(_ key: OpenSSLKey, hasPrivate: Bool) throws(CryptoError) -> OpenSSLKey {
        guard key.isA("EC") else { throw CryptoError(.invalidKeyEncoding, "the key is not an EC key") }
        var name = [CChar](repeating: 0, count: 64)
        var nameLength = 0
        let named = name.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return EVP_PKEY_get_group_name(key.pkey, base, buffer.count, &nameLength) == 1
        }
        guard named, nameLength < name.count else {
            throw openSSLFailure(.weakKey, "the EC key does not use the named curve P-256")
        }
        let curve = String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" || curve == "P-256" else {
            throw CryptoError(.weakKey, "the EC key is not on the P-256 curve")
        }
        guard let ctx = key.makeContext() else { throw CryptoError(.backend, "EC context allocation failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        // For a private key this also checks that the public point matches the scalar. A public
        // key gets the partial validation of SP 800-56A 5.6.2.3.4 (coordinates in range, on the
        // curve, not infinity): P-256 has cofactor 1, so every such point has order n and the
        // full check's extra n·Q multiplication cannot refuse anything more.
        let valid = hasPrivate ? EVP_PKEY_check(ctx) == 1 : EVP_PKEY_public_check_quick(ctx) == 1
        guard valid else { throw openSSLFailure(.invalidKeyEncoding, "the P-256 key fails validation") }
        try setUncompressedPointFormat(key)
        return key
    }

    private static func setUncompressedPointFormat(_ key: OpenSSLKey) throws(CryptoError) {
        guard EVP_PKEY_set_utf8_string_param(key.pkey, cString("point-format"), cString("uncompressed")) == 1 else {
            throw openSSLFailure(.backend, "setting the EC point format failed")
        }
    }

    static func exportPrivatePKCS8(_ key: OpenSSLKey) -> [UInt8] {
        key.encodeDER(structure: "PrivateKeyInfo", selection: .keyPair) ?? []
    }

    static func exportPublicSPKI(_ key: OpenSSLKey) -> [UInt8] {
        let point = x963(key)
        guard point.count == 65 else { return exportPublicSPKIGeneral(key) }
        return spkiPrefix + point
    }

    static func exportPublicSPKIGeneral(_ key: OpenSSLKey) -> [UInt8] {
        key.encodeDER(structure: "SubjectPublicKeyInfo", selection: .publicKey) ?? []
    }

    /// 04 ‖ X ‖ Y. Empty only if OpenSSL cannot report a key's coordinates, which does not happen.
    static func x963(_ key: OpenSSLKey) -> [UInt8] {
        // Every key here has point-format "uncompressed", so its encoded public key is 04 ‖ X ‖ Y.
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        let read = point.withUnsafeMutableBufferPointer { out -> Bool in
            guard let base = out.baseAddress else { return false }
            return EVP_PKEY_get_octet_string_param(key.pkey, cString("encoded-pub-key"), base, out.count, &length) == 1
        }
        if read, length == 65, point[0] == 0x04 { return point }
        ERR_clear_error()
        guard let x = key.unsignedParameter("qx", width: ECP256.coordinateByteCount),
              let y = key.unsignedParameter("qy", width: ECP256.coordinateByteCount) else { return [] }
        return [0x04] + x + y
    }

    static func compressed(_ key: OpenSSLKey) -> [UInt8] {
        let point = x963(key)
        guard point.count == 65, let lastY = point.last else { return [] }
        return [lastY & 1 == 0 ? 0x02 : 0x03] + point[1...32]
    }

    static func rawPrivate(_ key: OpenSSLKey) -> [UInt8] {
        key.unsignedParameter("priv", width: ECP256.coordinateByteCount) ?? []
    }

    static func deriveSharedSecret(_ key: OpenSSLKey, peer: OpenSSLKey) throws(CryptoError) -> [UInt8] {
        guard let ctx = key.makeContext() else { throw CryptoError(.backend, "ECDH context allocation failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1 else { throw openSSLFailure(.backend, "ECDH setup failed") }
        // Every peer key was validated when it was made (`accept`) or generated by OpenSSL, so
        // OpenSSL's own peer check (a full public-key check with an n·Q multiplication) is skipped.
        guard EVP_PKEY_derive_set_peer_ex(ctx, peer.pkey, 0) == 1 else {
            throw openSSLFailure(.invalidKeyEncoding, "the peer key is not a valid P-256 public key")
        }
        var secret = [UInt8](repeating: 0, count: ECP256.coordinateByteCount)
        var length = secret.count
        let ok = secret.withUnsafeMutableBufferPointer { out -> Bool in
            guard let base = out.baseAddress else { return false }
            return EVP_PKEY_derive(ctx, base, &length) == 1
        }
        guard ok, length == ECP256.coordinateByteCount else { throw openSSLFailure(.backend, "ECDH derivation failed") }
        return secret
    }

    /// Largest strict DER encoding of two 256-bit positive integers: 2 + 2 × (2 + 33).
    private static let maxSignatureDERBytes = 72

    static func rawSignature(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let malformed = CryptoError(.invalidInput, "not a strict DER ECDSA P-256 signature")
        guard !der.isEmpty, der.count <= maxSignatureDERBytes else { throw malformed }
        let raw = der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(sig) }
            guard let end = cursor, end - base == buffer.count,
                  let r = ECDSA_SIG_get0_r(sig), let s = ECDSA_SIG_get0_s(sig),
                  BN_is_negative(r) == 0, BN_is_negative(s) == 0,
                  BN_is_zero(r) == 0, BN_is_zero(s) == 0,
                  let rBytes = BigNum.bytes(r, width: ECP256.coordinateByteCount),
                  let sBytes = BigNum.bytes(s, width: ECP256.coordinateByteCount) else { return nil }
            return rBytes + sBytes
        }
        // Re-encoding must give back the input: BER variants of the same numbers are refused.
        guard let raw, derSignature(fromRaw: raw) == der else {
            ERR_clear_error()
            throw malformed
        }
        return raw
    }

    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * ECP256.coordinateByteCount, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let set = raw.withUnsafeBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress,
                  let r = BN_bin2bn(base, Int32(ECP256.coordinateByteCount), nil) else { return false }
            guard let s = BN_bin2bn(base + ECP256.coordinateByteCount, Int32(ECP256.coordinateByteCount), nil) else {
                BN_free(r)
                return false
            }
            guard ECDSA_SIG_set0(sig, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                return false
            }
            return true
        }
        guard set else { ERR_clear_error(); return nil }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { ERR_clear_error(); return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        guard written == length else { ERR_clear_error(); return nil }
        return der
    }
}
