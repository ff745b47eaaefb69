import COpenSSL
import Foundation

enum HKDFBackend {
    /// EVP_KDF "HKDF" in extract-and-expand mode. The parameter array points straight into the
    /// caller's buffers (no copies of the key material are left in OpenSSL's heap).
    static func sha256(inputKeyMaterial: SecretKey, salt: [UInt8], info: [UInt8],
                       outputByteCount: Int) throws(CryptoError) -> SecretKey {
        guard let kdf = EVP_KDF_fetch(nil, cString("HKDF"), nil) else {
            throw openSSLFailure(.backend, "HKDF is not available")
        }
        defer { EVP_KDF_free(kdf) }
        guard let kctx = EVP_KDF_CTX_new(kdf) else { throw openSSLFailure(.backend, "HKDF context allocation failed") }
        defer { EVP_KDF_CTX_free(kctx) }

        var output = [UInt8](repeating: 0, count: outputByteCount)
        let ok = inputKeyMaterial.withUnsafeBytes { ikm -> Bool in
            withNonNullBytes(salt) { saltPointer, saltCount in
                withNonNullBytes(info) { infoPointer, infoCount in
                    guard let ikmBase = ikm.baseAddress else { return false }
                    var params: [OSSL_PARAM] = []
                    params.append(OSSL_PARAM_construct_utf8_string(
                        cString("digest"), UnsafeMutablePointer(mutating: cString("SHA256")), 0))
                    params.append(OSSL_PARAM_construct_octet_string(
                        cString("key"), UnsafeMutableRawPointer(mutating: ikmBase), ikm.count))
                    if saltCount > 0 {
                        params.append(OSSL_PARAM_construct_octet_string(
                            cString("salt"), UnsafeMutableRawPointer(mutating: saltPointer), saltCount))
                    }
                    if infoCount > 0 {
                        params.append(OSSL_PARAM_construct_octet_string(
                            cString("info"), UnsafeMutableRawPointer(mutating: infoPointer), infoCount))
                    }
                    params.append(OSSL_PARAM_construct_end())
                    return output.withUnsafeMutableBufferPointer { out -> Bool in
                        guard let outBase = out.baseAddress else { return false }
                        return params.withUnsafeBufferPointer { list -> Bool in
                            guard let listBase = list.baseAddress else { return false }
                            return EVP_KDF_derive(kctx, outBase, outputByteCount, listBase) == 1
                        }
                    }
                }
            }
        }
        defer { output.withUnsafeMutableBytes { raw in if let base = raw.baseAddress { OPENSSL_cleanse(base, raw.count) } } }
        guard ok else { throw openSSLFailure(.backend, "HKDF derivation failed") }
        return SecretKey(data: output)
    }
}
