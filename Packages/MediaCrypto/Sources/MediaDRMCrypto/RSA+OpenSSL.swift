import COpenSSL
import Foundation

enum RSABackend {
    enum PrivateFormat { case pkcs8, pkcs1 }
    enum PublicFormat { case spki, pkcs1 }

    static func generate(bits: Int) throws(CryptoError) -> OpenSSLKey {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, cString("RSA"), nil) else {
            throw openSSLFailure(.backend, "RSA key generation context allocation failed")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(ctx) == 1,
              EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1,
              EVP_PKEY_generate(ctx, &pkey) == 1,
              let made = pkey else {
            if let partial = pkey { EVP_PKEY_free(partial) }
            throw openSSLFailure(.backend, "RSA key generation failed")
        }
        return OpenSSLKey(taking: made)
    }

    static func importPrivate(der: [UInt8], formats: [PrivateFormat]) throws(CryptoError) -> OpenSSLKey {
        let shape = try DERFrame.shape(der)
        for format in formats {
            let (structure, expected): (StaticString, DERFrame.Shape) = format == .pkcs8
                ? ("PrivateKeyInfo", .privateKeyInfo) : ("type-specific", .rsaPrivateKey)
            guard shape == expected else { continue }
            if let key = OpenSSLKey.decode(der: der, structure: structure, keyType: "RSA", selection: .keyPair) {
                try checkAcceptable(key)
                try checkPairwise(key)
                return key
            }
        }
        throw CryptoError(.invalidKeyEncoding, "not an RSA private key in PKCS#8 or PKCS#1 DER")
    }

    static func importPublic(der: [UInt8], format: PublicFormat) throws(CryptoError) -> OpenSSLKey {
        try DERFrame.require(der, shape: format == .spki ? .subjectPublicKeyInfo : .rsaPublicKey)
        let structure: StaticString = format == .spki ? "SubjectPublicKeyInfo" : "type-specific"
        guard let key = OpenSSLKey.decode(der: der, structure: structure, keyType: "RSA", selection: .publicKey) else {
            throw CryptoError(.invalidKeyEncoding, format == .spki
                ? "not an RSA public key in SubjectPublicKeyInfo DER"
                : "not an RSA public key in PKCS#1 DER")
        }
        try checkAcceptable(key)
        return key
    }

    static func importComponents(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> OpenSSLKey {
        let n = Array(modulus.drop(while: { $0 == 0 }))
        let e = Array(exponent.drop(while: { $0 == 0 }))
        guard let nFirst = n.first, let nLast = n.last else {
            throw CryptoError(.invalidKeyEncoding, "RSA modulus is empty or zero")
        }
        let nBits = (n.count - 1) * 8 + (8 - nFirst.leadingZeroBitCount)
        guard nBits >= RSA.minimumKeySizeInBits else {
            throw CryptoError(.weakKey, "RSA keys under \(RSA.minimumKeySizeInBits) bits are refused")
        }
        guard nBits <= RSA.maximumKeySizeInBits else {
            throw CryptoError(.invalidKeyEncoding, "RSA modulus exceeds \(RSA.maximumKeySizeInBits) bits")
        }
        guard nLast & 1 == 1 else { throw CryptoError(.invalidKeyEncoding, "RSA modulus is even") }
        try checkExponent(e)
        let params = ParamBuilder()
        params.push("n", unsignedBigEndian: n)
        params.push("e", unsignedBigEndian: e)
        guard let key = OpenSSLKey.fromData(keyType: "RSA", selection: .publicKey, params: params) else {
            throw CryptoError(.invalidKeyEncoding, "RSA modulus and exponent do not form a key")
        }
        try checkAcceptable(key)
        return key
    }

    /// The size and exponent rules every RSA key must meet, whatever its encoding.
    static func checkAcceptable(_ key: OpenSSLKey) throws(CryptoError) {
        guard key.isA("RSA") else { throw CryptoError(.invalidKeyEncoding, "the key is not an RSA key") }
        let bits = key.bits
        guard bits >= RSA.minimumKeySizeInBits else {
            throw CryptoError(.weakKey, "RSA keys under \(RSA.minimumKeySizeInBits) bits are refused")
        }
        guard bits <= RSA.maximumKeySizeInBits else {
            throw CryptoError(.invalidKeyEncoding, "RSA modulus exceeds \(RSA.maximumKeySizeInBits) bits")
        }
        guard let n = key.unsignedParameter("n"), let last = n.last, last & 1 == 1 else {
            throw CryptoError(.invalidKeyEncoding, "RSA modulus is even or unreadable")
        }
        guard let e = key.unsignedParameter("e") else {
            throw CryptoError(.invalidKeyEncoding, "RSA public exponent is unreadable")
        }
        try checkExponent(e)
    }

    /// OpenSSL does not check that the parts of an imported private key belong together. A
    /// sign-then-verify round trip does, cheaply (full validation tests primality and costs
    /// tens of milliseconds): it refuses a key whose modulus or CRT values were damaged.
    private static func checkPairwise(_ key: OpenSSLKey) throws(CryptoError) {
        let probe = Array("MediaCrypto RSA pairwise consistency check".utf8)
        guard let signature = key.signSHA256(probe), key.verifySHA256(signature: signature, message: probe) else {
            throw openSSLFailure(.invalidKeyEncoding, "the RSA private key parts are inconsistent")
        }
    }

    /// e odd, 3 <= e < 2^256 (SP 800-56B allows no larger; e = 1 would make encryption the identity).
    private static func checkExponent(_ e: [UInt8]) throws(CryptoError) {
        let trimmed = e.drop(while: { $0 == 0 })
        guard let last = trimmed.last, last & 1 == 1, trimmed.count <= 32,
              trimmed.count > 1 || last >= 3 else {
            throw CryptoError(.weakKey, "RSA public exponent must be odd, at least 3 and at most 256 bits")
        }
    }

    static func exportPrivatePKCS8(_ key: OpenSSLKey) -> [UInt8] {
        key.encodeDER(structure: "PrivateKeyInfo", selection: .keyPair) ?? []
    }

    static func exportPublicSPKI(_ key: OpenSSLKey) -> [UInt8] {
        key.encodeDER(structure: "SubjectPublicKeyInfo", selection: .publicKey) ?? []
    }

    private static func configureOAEP(_ ctx: OpaquePointer, padding: RSA.Padding) -> Bool {
        let md = padding == .oaepSHA1 ? EVP_sha1() : EVP_sha256()
        return EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_oaep_md(ctx, md) == 1
            && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md) == 1
    }

    static func encrypt(_ key: OpenSSLKey, plaintext: [UInt8], padding: RSA.Padding) throws(CryptoError) -> Data {
        let modulusBytes = (key.bits + 7) / 8
        let limit = modulusBytes - 2 * padding.digestByteCount - 2
        guard plaintext.count <= limit else {
            throw CryptoError(.invalidInput, "plaintext exceeds the \(limit)-byte OAEP limit of this key")
        }
        guard let ctx = key.makeContext() else { throw CryptoError(.backend, "RSA context allocation failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_encrypt_init(ctx) == 1, configureOAEP(ctx, padding: padding) else {
            throw openSSLFailure(.backend, "RSA-OAEP setup failed")
        }
        var output = [UInt8](repeating: 0, count: modulusBytes)
        var length = output.count
        let ok = withNonNullBytes(plaintext) { input, inputLength in
            output.withUnsafeMutableBufferPointer { out -> Bool in
                guard let base = out.baseAddress else { return false }
                return EVP_PKEY_encrypt(ctx, base, &length, input, inputLength) == 1
            }
        }
        guard ok, length == modulusBytes else { throw openSSLFailure(.backend, "RSA-OAEP encryption failed") }
        return Data(output)
    }

    static func decrypt(_ key: OpenSSLKey, ciphertext: [UInt8], padding: RSA.Padding) throws(CryptoError) -> Data {
        let modulusBytes = (key.bits + 7) / 8
        let refused = CryptoError(.authenticationFailure, "RSA-OAEP decryption failed")
        guard ciphertext.count == modulusBytes else { throw refused }
        guard let ctx = key.makeContext() else { throw CryptoError(.backend, "RSA context allocation failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_decrypt_init(ctx) == 1, configureOAEP(ctx, padding: padding) else {
            throw openSSLFailure(.backend, "RSA-OAEP setup failed")
        }
        var output = [UInt8](repeating: 0, count: modulusBytes)
        defer { output.withUnsafeMutableBytes { raw in if let base = raw.baseAddress { OPENSSL_cleanse(base, raw.count) } } }
        var length = output.count
        let ok = ciphertext.withUnsafeBufferPointer { input -> Bool in
            guard let inputBase = input.baseAddress else { return false }
            return output.withUnsafeMutableBufferPointer { out -> Bool in
                guard let base = out.baseAddress else { return false }
                return EVP_PKEY_decrypt(ctx, base, &length, inputBase, input.count) == 1
            }
        }
        guard ok, length <= modulusBytes else {
            ERR_clear_error()
            throw refused
        }
        return Data(output.prefix(length))
    }
}
