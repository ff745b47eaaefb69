import Foundation

extension AESCipher {
    /// AES-CBC without padding (NIST SP 800-38A): the input is whole 16-byte blocks and the
    /// output has the same length. Padding schemes, if any, belong to the caller's format.
    public enum CBC {
        public static let ivByteCount = 16

        public static func encrypt(_ plaintext: some DataProtocol, using key: SecretKey,
                                   iv: some DataProtocol) throws(CryptoError) -> Data {
            try crypt(plaintext, key: key, iv: iv, encrypt: true)
        }

        public static func decrypt(_ ciphertext: some DataProtocol, using key: SecretKey,
                                   iv: some DataProtocol) throws(CryptoError) -> Data {
            try crypt(ciphertext, key: key, iv: iv, encrypt: false)
        }

        private static func crypt(_ input: some DataProtocol, key: SecretKey, iv: some DataProtocol,
                                  encrypt: Bool) throws(CryptoError) -> Data {
            try AESCipher.checkKeySize(key)
            guard iv.count == ivByteCount else {
                throw CryptoError(.invalidSize, "CBC IV must be 16 bytes")
            }
            guard input.count % AESCipher.blockByteCount == 0 else {
                throw CryptoError(.invalidInput, "CBC input length must be a multiple of 16 bytes")
            }
            let context = try OpenSSLCipherContext()
            let result: Result<Data, CryptoError> = key.withUnsafeBytes { keyBytes in
                withSymmetricInputBytes(iv) { ivBytes in
                    withSymmetricInputBytes(input) { inputBytes in
                        do throws(CryptoError) {
                            try context.start(.aesCBC(keyByteCount: keyBytes.count), key: keyBytes, iv: ivBytes,
                                              encrypt: encrypt)
                        } catch {
                            return .failure(error)
                        }
                        var output = Data(count: inputBytes.count)
                        let ok = output.withUnsafeMutableBytes { out -> Bool in
                            guard let inBase = inputBytes.baseAddress, let outBase = out.baseAddress else { return true }
                            return context.update(input: inBase, output: outBase, count: inputBytes.count)
                        }
                        guard ok, context.finish() else {
                            return .failure(CryptoError(.backend, "CBC transform failed"))
                        }
                        return .success(output)
                    }
                }
            }
            return try result.get()
        }
    }
}
