import COpenSSL
import Foundation

/// The AES modes the symmetric code asks OpenSSL for. Resolving them here keeps every EVP call
/// in this file; the AES namespaces stay pure Swift.
enum OpenSSLCipherAlgorithm {
    case aesGCM(keyByteCount: Int)
    case aesCBC(keyByteCount: Int)

    /// The EVP cipher for the key size, or nil when the size is not 128, 192 or 256 bits.
    fileprivate var evpCipher: OpaquePointer? {
        switch self {
        case .aesGCM(16): return EVP_aes_128_gcm()
        case .aesGCM(24): return EVP_aes_192_gcm()
        case .aesGCM(32): return EVP_aes_256_gcm()
        case .aesCBC(16): return EVP_aes_128_cbc()
        case .aesCBC(24): return EVP_aes_192_cbc()
        case .aesCBC(32): return EVP_aes_256_cbc()
        default: return nil
        }
    }
}

/// One EVP_CIPHER_CTX, freed with its owner. Not Sendable: a context carries chaining state
/// (the running CBC IV, the GCM hash) between calls.
final class OpenSSLCipherContext {
    /// EVP_CipherUpdate takes an `int` length; longer inputs go in chunks. A multiple of the AES
    /// block so CBC never buffers a partial block between chunks.
    private static let maximumChunk = 1 << 30

    private let context: OpaquePointer

    init() throws(CryptoError) {
        guard let context = EVP_CIPHER_CTX_new() else {
            throw CryptoError(.backend, "could not allocate a cipher context")
        }
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Sets the algorithm, key and IV. Callers have checked the key and IV sizes.
    /// CBC contexts get padding disabled: every caller works on whole blocks.
    func start(_ algorithm: OpenSSLCipherAlgorithm, key: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer,
               encrypt: Bool) throws(CryptoError) {
        guard let cipher = algorithm.evpCipher else {
            throw CryptoError(.invalidSize, "AES key must be 16, 24 or 32 bytes")
        }
        guard let keyBase = key.baseAddress, let ivBase = iv.baseAddress else {
            throw CryptoError(.invalidSize, "AES key and IV must not be empty")
        }
        guard EVP_CipherInit_ex(context, cipher, nil, keyBase.assumingMemoryBound(to: UInt8.self),
                                ivBase.assumingMemoryBound(to: UInt8.self), encrypt ? 1 : 0) == 1 else {
            throw Self.failure("cipher initialisation failed")
        }
        if case .aesCBC = algorithm {
            guard EVP_CIPHER_CTX_set_padding(context, 0) == 1 else {
                throw Self.failure("could not disable CBC padding")
            }
        }
    }

    /// Restarts the chain at `iv`, keeping the cipher, key schedule and direction. This is the
    /// cheap per-range reset of the cbcs pattern cipher: no fetch, no key expansion.
    func restart(iv: UnsafeRawBufferPointer) -> Bool {
        guard let ivBase = iv.baseAddress else { return false }
        return EVP_CipherInit_ex(context, nil, nil, nil, ivBase.assumingMemoryBound(to: UInt8.self), -1) == 1
    }

    /// Transforms `count` bytes from `input` to `output`; both may be the same pointer (in place).
    /// Succeeds only when OpenSSL produced exactly `count` bytes, which holds for GCM and for CBC
    /// fed whole blocks.
    func update(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, count: Int) -> Bool {
        var done = 0
        while done < count {
            let chunk = min(count - done, Self.maximumChunk)
            var produced: Int32 = 0
            let ok = EVP_CipherUpdate(context, (output + done).assumingMemoryBound(to: UInt8.self), &produced,
                                      (input + done).assumingMemoryBound(to: UInt8.self), Int32(chunk))
            guard ok == 1, Int(produced) == chunk else {
                ERR_clear_error()
                return false
            }
            done += chunk
        }
        return true
    }

    /// Feeds additional authenticated data to an AEAD context.
    func authenticate(_ aad: UnsafeRawBufferPointer) -> Bool {
        guard let base = aad.baseAddress else { return true }
        var done = 0
        while done < aad.count {
            let chunk = min(aad.count - done, Self.maximumChunk)
            var produced: Int32 = 0
            guard EVP_CipherUpdate(context, nil, &produced, (base + done).assumingMemoryBound(to: UInt8.self),
                                   Int32(chunk)) == 1 else {
                ERR_clear_error()
                return false
            }
            done += chunk
        }
        return true
    }

    /// EVP_CipherFinal_ex for modes that hold no pending output (GCM, unpadded CBC on whole
    /// blocks). For GCM decryption a false result is a tag mismatch.
    func finish() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 32)
        var produced: Int32 = 0
        let ok = scratch.withUnsafeMutableBufferPointer { buffer -> Int32 in
            EVP_CipherFinal_ex(context, buffer.baseAddress, &produced)
        }
        guard ok == 1, produced == 0 else {
            ERR_clear_error()
            return false
        }
        return true
    }

    /// Reads the GCM tag after `finish()` of an encryption.
    func gcmTag(byteCount: Int) -> [UInt8]? {
        var tag = [UInt8](repeating: 0, count: byteCount)
        let ok = tag.withUnsafeMutableBytes { raw -> Int32 in
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(byteCount), raw.baseAddress)
        }
        guard ok == 1 else {
            ERR_clear_error()
            return nil
        }
        return tag
    }

    /// Sets the expected GCM tag before `finish()` of a decryption.
    func setGCMTag(_ tag: UnsafeRawBufferPointer) -> Bool {
        guard let base = tag.baseAddress else { return false }
        let ok = EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), UnsafeMutableRawPointer(mutating: base))
        guard ok == 1 else {
            ERR_clear_error()
            return false
        }
        return true
    }

    private static func failure(_ reason: String) -> CryptoError {
        ERR_clear_error()
        return CryptoError(.backend, reason)
    }
}

/// Runs `body` over the bytes of `data` without copying when they are already contiguous
/// (`Data`, `[UInt8]`, slices), copying once otherwise.
func withSymmetricInputBytes<D: DataProtocol, R>(_ data: D, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    if let result = data.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    if data.regions.count == 1, let region = data.regions.first {
        return region.withUnsafeBytes { body($0) }
    }
    return Array(data).withUnsafeBytes { body($0) }
}
