import COpenSSL
import Foundation

/// Owns one EVP_PKEY. Never mutated after init; OpenSSL 3 allows concurrent read-only use of a
/// key because every operation makes its own EVP_PKEY_CTX, so sharing across tasks is safe.
final class OpenSSLKey: @unchecked Sendable {
    let pkey: OpaquePointer

    init(taking pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    enum Selection {
        case publicKey, keyPair
        var value: Int32 {
            switch self {
            case .publicKey: return mdrm_asym_selection_public_key()
            case .keyPair: return mdrm_asym_selection_keypair()
            }
        }
    }

    var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    func isA(_ name: StaticString) -> Bool { EVP_PKEY_is_a(pkey, cString(name)) == 1 }

    /// Decodes exactly `der` (no trailing bytes) with the decoder for one structure and key type.
    /// Returns nil on any failure, with the error queue cleared.
    static func decode(der: [UInt8], structure: StaticString, keyType: StaticString, selection: Selection) -> OpenSSLKey? {
        guard !der.isEmpty else { return nil }
        var pkey: OpaquePointer? = nil
        guard let dctx = OSSL_DECODER_CTX_new_for_pkey(&pkey, cString("DER"), cString(structure), cString(keyType),
                                                       selection.value, nil, nil) else {
            ERR_clear_error()
            return nil
        }
        defer { OSSL_DECODER_CTX_free(dctx) }
        let ok = der.withUnsafeBufferPointer { buffer -> Bool in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            var remaining = buffer.count
            return OSSL_DECODER_from_data(dctx, &cursor, &remaining) == 1 && remaining == 0
        }
        guard ok, let decoded = pkey else {
            if let partial = pkey { EVP_PKEY_free(partial) }
            ERR_clear_error()
            return nil
        }
        ERR_clear_error()
        return OpenSSLKey(taking: decoded)
    }

    /// DER in one structure ("PrivateKeyInfo", "SubjectPublicKeyInfo"). The OpenSSL buffer is
    /// cleansed before it is freed because it may hold a private key.
    func encodeDER(structure: StaticString, selection: Selection) -> [UInt8]? {
        guard let ectx = OSSL_ENCODER_CTX_new_for_pkey(pkey, selection.value, cString("DER"), cString(structure), nil) else {
            ERR_clear_error()
            return nil
        }
        defer { OSSL_ENCODER_CTX_free(ectx) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        guard OSSL_ENCODER_to_data(ectx, &output, &length) == 1, let bytes = output else {
            ERR_clear_error()
            return nil
        }
        defer { mdrm_asym_clear_free(bytes, length) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Builds a key from parameters (RSA n/e, EC group and point, EC private scalar).
    static func fromData(keyType: StaticString, selection: Selection, params: ParamBuilder) -> OpenSSLKey? {
        guard let built = params.build() else { ERR_clear_error(); return nil }
        defer { OSSL_PARAM_free(built) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, cString(keyType), nil) else { ERR_clear_error(); return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer? = nil
        guard EVP_PKEY_fromdata_init(ctx) == 1,
              EVP_PKEY_fromdata(ctx, &pkey, selection.value, built) == 1,
              let made = pkey else {
            if let partial = pkey { EVP_PKEY_free(partial) }
            ERR_clear_error()
            return nil
        }
        return OpenSSLKey(taking: made)
    }

    /// An unsigned big-endian integer parameter (RSA "n", "e"; EC "qx", "priv"), without
    /// leading zeros, or left-padded to `width` bytes when given.
    func unsignedParameter(_ name: StaticString, width: Int? = nil) -> [UInt8]? {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pkey, cString(name), &bn) == 1, let number = bn else {
            ERR_clear_error()
            return nil
        }
        defer { BN_clear_free(number) }
        return BigNum.bytes(number, width: width)
    }

    /// A fresh context for one operation on this key.
    func makeContext() -> OpaquePointer? {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { ERR_clear_error(); return nil }
        return ctx
    }

    /// EVP_DigestSign with SHA-256 (PKCS#1 v1.5 for RSA, DER ECDSA for EC).
    func signSHA256(_ message: [UInt8]) -> [UInt8]? {
        guard let mctx = EVP_MD_CTX_new() else { ERR_clear_error(); return nil }
        defer { EVP_MD_CTX_free(mctx) }
        guard EVP_DigestSignInit(mctx, nil, EVP_sha256(), nil, pkey) == 1 else { ERR_clear_error(); return nil }
        let signature = withNonNullBytes(message) { tbs, tbsLength -> [UInt8]? in
            var length = 0
            guard EVP_DigestSign(mctx, nil, &length, tbs, tbsLength) == 1, length > 0 else { return nil }
            var output = [UInt8](repeating: 0, count: length)
            let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
                guard let base = out.baseAddress else { return false }
                return EVP_DigestSign(mctx, base, &length, tbs, tbsLength) == 1
            }
            guard ok, length <= output.count else { return nil }
            return Array(output.prefix(length))
        }
        if signature == nil { ERR_clear_error() }
        return signature
    }

    /// EVP_DigestVerify with SHA-256; any failure is "not valid".
    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard !signature.isEmpty, let mctx = EVP_MD_CTX_new() else { ERR_clear_error(); return false }
        defer { EVP_MD_CTX_free(mctx) }
        guard EVP_DigestVerifyInit(mctx, nil, EVP_sha256(), nil, pkey) == 1 else { ERR_clear_error(); return false }
        let valid = withNonNullBytes(signature) { sig, sigLength in
            withNonNullBytes(message) { tbs, tbsLength in
                EVP_DigestVerify(mctx, sig, sigLength, tbs, tbsLength) == 1
            }
        }
        if !valid { ERR_clear_error() }
        return valid
    }
}

/// Parameters for EVP_PKEY_fromdata. OSSL_PARAM_BLD keeps pointers to pushed data until
/// build(), so every value is copied into memory this object owns (and cleanses) until it dies.
final class ParamBuilder {
    private let bld: OpaquePointer?
    private var buffers: [(UnsafeMutableRawPointer, Int)] = []
    private var bignums: [OpaquePointer] = []
    private var failed = false

    init() {
        bld = OSSL_PARAM_BLD_new()
        if bld == nil { failed = true }
    }

    deinit {
        if let bld { OSSL_PARAM_BLD_free(bld) }
        for (pointer, count) in buffers {
            OPENSSL_cleanse(pointer, count)
            free(pointer)
        }
        for number in bignums { BN_clear_free(number) }
    }

    func push(_ key: StaticString, utf8 value: StaticString) {
        guard !failed, let bld else { return }
        if OSSL_PARAM_BLD_push_utf8_string(bld, cString(key), cString(value), 0) != 1 { failed = true }
    }

    func push(_ key: StaticString, octets value: [UInt8]) {
        guard !failed, let bld, !value.isEmpty, let copy = malloc(value.count) else { failed = true; return }
        value.withUnsafeBytes { source in
            if let base = source.baseAddress { copy.copyMemory(from: base, byteCount: value.count) }
        }
        buffers.append((copy, value.count))
        if OSSL_PARAM_BLD_push_octet_string(bld, cString(key), copy, value.count) != 1 { failed = true }
    }

    /// An unsigned big-endian integer. `secret` puts it in a secure BIGNUM, which makes
    /// OSSL_PARAM_BLD place it in a block that OSSL_PARAM_free cleanses.
    func push(_ key: StaticString, unsignedBigEndian value: [UInt8], secret: Bool = false) {
        guard !failed, let bld, let number = secret ? BN_secure_new() : BN_new() else { failed = true; return }
        bignums.append(number)
        let converted = value.withUnsafeBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bin2bn(base, Int32(buffer.count), number) != nil
        }
        guard converted, OSSL_PARAM_BLD_push_BN(bld, cString(key), number) == 1 else { failed = true; return }
    }

    /// The parameter array; free it with OSSL_PARAM_free while this builder is still alive.
    func build() -> UnsafeMutablePointer<OSSL_PARAM>? {
        guard !failed, let bld else { return nil }
        return OSSL_PARAM_BLD_to_param(bld)
    }
}

enum BigNum {
    static func bitCount(_ number: OpaquePointer) -> Int { Int(BN_num_bits(number)) }

    static func bytes(_ number: OpaquePointer, width: Int? = nil) -> [UInt8]? {
        let minimal = (bitCount(number) + 7) / 8
        let count = width ?? minimal
        guard minimal <= count else { return nil }
        if count == 0 { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return BN_bn2binpad(number, base, Int32(count))
        }
        guard written == Int32(count) else { ERR_clear_error(); return nil }
        return out
    }
}

/// A NUL-terminated C string with static storage: safe to hand to OpenSSL functions that keep
/// the pointer (OSSL_PARAM keys, OSSL_PARAM_BLD values).
@inline(__always)
func cString(_ value: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(value.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Calls `body` with a non-null pointer even for empty input, because several OpenSSL entry
/// points treat a null buffer as an error regardless of its length.
func withNonNullBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
    bytes.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress, !buffer.isEmpty { return body(base, buffer.count) }
        let placeholder: UInt8 = 0
        return withUnsafePointer(to: placeholder) { body($0, 0) }
    }
}

/// A failure after an OpenSSL call: the error queue is cleared (so its text can never leak into
/// a later error) and a fixed reason is returned.
func openSSLFailure(_ code: CryptoError.Code, _ reason: String) -> CryptoError {
    ERR_clear_error()
    return CryptoError(code, reason)
}
