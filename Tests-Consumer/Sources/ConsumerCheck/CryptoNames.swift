// swift-crypto's top-level names (`SHA256`, `SymmetricKey` and `SymmetricKeySize`, `HMAC`,
// `HKDF`, `AES`, `P256`: the consumer's `Crypto` declares them) used unqualified in a file that also imports
// MediaDRMCrypto, beside MediaDRMCrypto's own names. Should MediaDRMCrypto declare one of them
// again, the name becomes ambiguous here and the package no longer builds.
import Crypto
import Foundation
import MediaDRMCrypto

// An extension names its type alone, without members or generic arguments by which the compiler
// could pick one of two modules' types: a second declaration of any of these names fails here.
extension SHA256 { static var module: String { "Crypto" } }
extension SymmetricKey { static var module: String { "Crypto" } }
extension SymmetricKeySize { static var module: String { "Crypto" } }
extension HMAC { static var module: String { "Crypto" } }
extension HKDF { static var module: String { "Crypto" } }
extension AES { static var module: String { "Crypto" } }
extension P256 { static var module: String { "Crypto" } }

/// The consumer's crypto names and MediaDRMCrypto's side by side; nil when both sides answer
/// as expected, else what did not.
func checkCryptoNames() throws -> String? {
    let modules = [SHA256.module, SymmetricKey.module, SymmetricKeySize.module, HMAC<SHA256>.module,
                   HKDF<SHA256>.module, AES.module, P256.module]
    let theirs: SymmetricKey = SymmetricKey(size: .bits256)
    guard modules.allSatisfy({ $0 == "Crypto" }), theirs.bitCount == 256, SHA256.byteCount == 32,
          HMAC<SHA256>.byteCount == 32, HKDF<SHA256>.maximumOutputByteCount == 8160,
          AES.GCM.nonceByteCount == 12, P256.Signing.signatureByteCount == 64 else {
        return "the consumer's Crypto names did not resolve to its own types"
    }

    let message = Data("consumer".utf8)
    let key = try SecretKey(size: .bits256)
    let box = try AESCipher.GCM.seal(message, using: key)
    guard try AESCipher.GCM.open(AESCipher.GCM.SealedBox(combined: box.combined), using: key) == message else {
        return "MediaDRMCrypto's AES-GCM round trip failed"
    }
    let mac = HMACSHA256.authenticationCode(message, key: key)
    guard mac.count == SHA256Digest.byteCount, HMACSHA256.isValid(mac, for: message, key: key) else {
        return "MediaDRMCrypto's HMAC-SHA256 did not verify its own MAC"
    }
    let derived = try HKDFSHA256.deriveKey(inputKeyMaterial: key, salt: Data(), info: message, outputByteCount: 16)
    guard derived.byteCount == 16 else { return "MediaDRMCrypto's HKDF-SHA256 gave \(derived.byteCount) bytes" }
    let signer = try ECP256.Signing.PrivateKey()
    guard signer.publicKey.isValidSignature(try signer.signature(for: message), for: message) else {
        return "MediaDRMCrypto's P-256 signature did not verify"
    }
    return nil
}
