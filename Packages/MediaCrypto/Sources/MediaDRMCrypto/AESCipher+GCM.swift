import Foundation

extension AESCipher {
    /// AES-GCM (NIST SP 800-38D) with 12-byte nonces and 16-byte tags, the only shape the
    /// system stores (`nonce ‖ ciphertext ‖ tag`).
    public enum GCM {
        public static let nonceByteCount = 12
        public static let tagByteCount = 16

        /// A 96-bit GCM nonce.
        public struct Nonce: Sendable, Equatable {
            private let bytes: [UInt8]

            /// A fresh random nonce from the system generator.
            public init() throws(CryptoError) {
                bytes = try SecureRandom.bytes(count: GCM.nonceByteCount)
            }

            /// A nonce from exactly 12 bytes.
            public init(data: some DataProtocol) throws(CryptoError) {
                guard data.count == GCM.nonceByteCount else {
                    throw CryptoError(.invalidSize, "GCM nonce must be 12 bytes")
                }
                bytes = Array(data)
            }

            public var data: Data { Data(bytes) }

            func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
                bytes.withUnsafeBytes(body)
            }
        }

        /// The output of a seal: nonce, ciphertext (as long as the plaintext) and 16-byte tag.
        public struct SealedBox: Sendable, Equatable {
            public let nonce: Nonce
            public let ciphertext: Data
            public let tag: Data

            /// `nonce ‖ ciphertext ‖ tag`, the stored form.
            public var combined: Data {
                var out = Data(capacity: GCM.nonceByteCount + ciphertext.count + GCM.tagByteCount)
                out.append(nonce.data)
                out.append(ciphertext)
                out.append(tag)
                return out
            }

            /// Splits `nonce ‖ ciphertext ‖ tag`; at least 28 bytes (an empty ciphertext).
            public init(combined: some DataProtocol) throws(CryptoError) {
                let bytes = Array(combined)
                guard bytes.count >= GCM.nonceByteCount + GCM.tagByteCount else {
                    throw CryptoError(.invalidSize, "GCM combined box must be at least 28 bytes")
                }
                let tagStart = bytes.count - GCM.tagByteCount
                nonce = try Nonce(data: bytes[0..<GCM.nonceByteCount])
                ciphertext = Data(bytes[GCM.nonceByteCount..<tagStart])
                tag = Data(bytes[tagStart...])
            }

            public init(nonce: Nonce, ciphertext: some DataProtocol, tag: some DataProtocol) throws(CryptoError) {
                guard tag.count == GCM.tagByteCount else {
                    throw CryptoError(.invalidSize, "GCM tag must be 16 bytes")
                }
                self.nonce = nonce
                self.ciphertext = Data(ciphertext)
                self.tag = Data(tag)
            }
        }

        /// Encrypts and authenticates `plaintext` and `aad`. A nil `nonce` draws a random one;
        /// callers supplying a nonce must never reuse it under the same key.
        public static func seal(_ plaintext: some DataProtocol, using key: SecretKey, nonce: Nonce? = nil,
                                authenticating aad: some DataProtocol = Data()) throws(CryptoError) -> SealedBox {
            try AESCipher.checkKeySize(key)
            let chosenNonce: Nonce
            if let nonce { chosenNonce = nonce } else { chosenNonce = try Nonce() }
            let context = try OpenSSLCipherContext()
            let sealed: Result<(Data, [UInt8]), CryptoError> = key.withUnsafeBytes { keyBytes in
                chosenNonce.withUnsafeBytes { nonceBytes in
                    withSymmetricInputBytes(aad) { aadBytes in
                        withSymmetricInputBytes(plaintext) { plainBytes in
                            run(context, encrypt: true, key: keyBytes, nonce: nonceBytes, aad: aadBytes,
                                input: plainBytes, expectedTag: nil)
                        }
                    }
                }
            }
            let (ciphertext, tag) = try sealed.get()
            return try SealedBox(nonce: chosenNonce, ciphertext: ciphertext, tag: tag)
        }

        /// Verifies and decrypts. Any change to nonce, ciphertext, tag or `aad` throws
        /// `.authenticationFailure`; no plaintext is returned then.
        public static func open(_ box: SealedBox, using key: SecretKey,
                                authenticating aad: some DataProtocol = Data()) throws(CryptoError) -> Data {
            try AESCipher.checkKeySize(key)
            let context = try OpenSSLCipherContext()
            let opened: Result<(Data, [UInt8]), CryptoError> = key.withUnsafeBytes { keyBytes in
                box.nonce.withUnsafeBytes { nonceBytes in
                    withSymmetricInputBytes(aad) { aadBytes in
                        withSymmetricInputBytes(box.ciphertext) { cipherBytes in
                            withSymmetricInputBytes(box.tag) { tagBytes in
                                run(context, encrypt: false, key: keyBytes, nonce: nonceBytes, aad: aadBytes,
                                    input: cipherBytes, expectedTag: tagBytes)
                            }
                        }
                    }
                }
            }
            return try opened.get().0
        }

        private static func run(_ context: OpenSSLCipherContext, encrypt: Bool, key: UnsafeRawBufferPointer,
                                nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
                                input: UnsafeRawBufferPointer,
                                expectedTag: UnsafeRawBufferPointer?) -> Result<(Data, [UInt8]), CryptoError> {
            do throws(CryptoError) {
                try context.start(.aesGCM(keyByteCount: key.count), key: key, iv: nonce, encrypt: encrypt)
            } catch {
                return .failure(error)
            }
            guard context.authenticate(aad) else {
                return .failure(CryptoError(.backend, "GCM rejected the associated data"))
            }
            var output = Data(count: input.count)
            let transformed = output.withUnsafeMutableBytes { out -> Bool in
                guard let inBase = input.baseAddress, let outBase = out.baseAddress else { return true }
                return context.update(input: inBase, output: outBase, count: input.count)
            }
            guard transformed else {
                return .failure(CryptoError(.backend, "GCM update failed"))
            }
            if let expectedTag {
                guard context.setGCMTag(expectedTag), context.finish() else {
                    output.resetBytes(in: 0..<output.count)
                    return .failure(CryptoError(.authenticationFailure, "GCM tag does not match"))
                }
                return .success((output, []))
            }
            guard context.finish(), let tag = context.gcmTag(byteCount: tagByteCount) else {
                return .failure(CryptoError(.backend, "GCM finalisation failed"))
            }
            return .success((output, tag))
        }
    }
}
