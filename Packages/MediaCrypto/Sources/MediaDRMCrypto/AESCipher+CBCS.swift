import Foundation

extension AESCipher {
    /// ISO/IEC 23001-7 `cbcs` pattern encryption: AES-128-CBC over a crypt:skip pattern of
    /// 16-byte blocks, with a constant IV.
    public enum CBCS {
        /// Blocks encrypted, then blocks left clear, repeating over a protected range. Values
        /// are what `tenc`/`seig` carry (4 bits each), checked when a `Cipher` is made.
        public struct Pattern: Sendable, Equatable, Hashable {
            public var cryptByteBlock: Int
            public var skipByteBlock: Int

            public init(cryptByteBlock: Int, skipByteBlock: Int) {
                self.cryptByteBlock = cryptByteBlock
                self.skipByteBlock = skipByteBlock
            }

            /// The video pattern: one block in ten encrypted.
            public static let video = Pattern(cryptByteBlock: 1, skipByteBlock: 9)
            /// Every whole block encrypted, the trailing partial block clear (audio).
            public static let fullSample = Pattern(cryptByteBlock: 1, skipByteBlock: 0)
        }

        /// A reusable pattern cipher owning one OpenSSL context per direction, so that a sample
        /// costs no allocation and no key expansion: per protected range the chain restarts at
        /// the constant IV; blocks go crypt:skip, the crypt blocks CBC-chained across the skipped
        /// ones (the chain continues from the last encrypted block); whole blocks at the end of a
        /// range that are fewer than `cryptByteBlock` stay clear, as does a tail under 16 bytes.
        ///
        /// Pattern 0:0 is accepted as a synonym of 1:0 (whole range encrypted), the reading
        /// players give it in `tenc`. Not Sendable: the contexts carry chaining state.
        public final class Cipher {
            public let pattern: Pattern
            private let cryptByteCount: Int
            private let strideByteCount: Int
            private let constantIV: [UInt8]
            private let encryptor: OpenSSLCipherContext
            private let decryptor: OpenSSLCipherContext

            /// `key` 16 bytes (AES-128), `constantIV` 16 bytes; pattern counts 0...15 with a
            /// non-zero crypt count unless both are zero.
            public init(key: SecretKey, constantIV: some DataProtocol, pattern: Pattern) throws(CryptoError) {
                guard key.byteCount == 16 else {
                    throw CryptoError(.invalidSize, "cbcs key must be 16 bytes")
                }
                guard constantIV.count == 16 else {
                    throw CryptoError(.invalidSize, "cbcs constant IV must be 16 bytes")
                }
                guard (0...15).contains(pattern.cryptByteBlock), (0...15).contains(pattern.skipByteBlock),
                      pattern.cryptByteBlock > 0 || pattern.skipByteBlock == 0 else {
                    throw CryptoError(.invalidInput, "cbcs pattern counts must be 0...15 with a non-zero crypt count")
                }
                self.pattern = pattern
                let crypt = max(pattern.cryptByteBlock, 1)
                cryptByteCount = crypt * AESCipher.blockByteCount
                strideByteCount = (crypt + pattern.skipByteBlock) * AESCipher.blockByteCount
                self.constantIV = Array(constantIV)
                encryptor = try OpenSSLCipherContext()
                decryptor = try OpenSSLCipherContext()
                let ivBytes = self.constantIV
                let started: CryptoError? = key.withUnsafeBytes { keyBytes in
                    ivBytes.withUnsafeBytes { ivBuffer in
                        do throws(CryptoError) {
                            try encryptor.start(.aesCBC(keyByteCount: 16), key: keyBytes, iv: ivBuffer, encrypt: true)
                            try decryptor.start(.aesCBC(keyByteCount: 16), key: keyBytes, iv: ivBuffer, encrypt: false)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                if let started { throw started }
            }

            /// Encrypts `buffer[range]` in place as one protected range.
            public func encrypt(_ buffer: inout [UInt8], range: Range<Int>) throws(CryptoError) {
                try crypt(&buffer, range: range, context: encryptor)
            }

            /// Decrypts `buffer[range]` in place as one protected range.
            public func decrypt(_ buffer: inout [UInt8], range: Range<Int>) throws(CryptoError) {
                try crypt(&buffer, range: range, context: decryptor)
            }

            /// Encrypts the whole buffer in place as one protected range.
            public func encrypt(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
                try crypt(buffer, context: encryptor)
            }

            /// Decrypts the whole buffer in place as one protected range.
            public func decrypt(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
                try crypt(buffer, context: decryptor)
            }

            private func crypt(_ buffer: inout [UInt8], range: Range<Int>,
                               context: OpenSSLCipherContext) throws(CryptoError) {
                guard range.lowerBound >= 0, range.upperBound <= buffer.count else {
                    throw CryptoError(.invalidInput, "cbcs range lies outside the buffer")
                }
                if range.count < AESCipher.blockByteCount { return }
                let ok = buffer.withUnsafeMutableBytes { raw -> Bool in
                    guard let base = raw.baseAddress else { return false }
                    return run(base + range.lowerBound, count: range.count, context: context)
                }
                guard ok else { throw CryptoError(.backend, "cbcs transform failed") }
            }

            private func crypt(_ buffer: UnsafeMutableRawBufferPointer, context: OpenSSLCipherContext) throws(CryptoError) {
                guard buffer.count >= AESCipher.blockByteCount, let base = buffer.baseAddress else { return }
                guard run(base, count: buffer.count, context: context) else {
                    throw CryptoError(.backend, "cbcs transform failed")
                }
            }

            /// One protected range: restart at the IV, then one EVP call per contiguous crypt run
            /// (the whole block-aligned prefix when nothing is skipped).
            private func run(_ base: UnsafeMutableRawPointer, count: Int, context: OpenSSLCipherContext) -> Bool {
                guard constantIV.withUnsafeBytes({ context.restart(iv: $0) }) else { return false }
                if pattern.skipByteBlock == 0 {
                    let length = count - count % cryptByteCount
                    return length == 0 || context.update(input: base, output: base, count: length)
                }
                var offset = 0
                while count - offset >= cryptByteCount {
                    let start = base + offset
                    guard context.update(input: start, output: start, count: cryptByteCount) else { return false }
                    offset += strideByteCount
                }
                return true
            }
        }
    }
}
