import Foundation
import MediaDRMCrypto
import MediaDRMJSON

/// The seal of the library's own records (the clock's high-water mark, the pinned
/// licence-signing keys, each title's first offline play; docs/offline.md): AES-256-GCM under a
/// key derived with HKDF-SHA256 from the device private key, the record's name (its path in the
/// library without the extension) as associated data. An edit, a record swapped for another, or
/// one copied from another library does not open. It keeps out a casual edit, not the device's
/// owner: whoever holds `device-key.pem` and this code can seal anything.
///
/// Stored form: one version byte, then `nonce ‖ ciphertext ‖ tag`; the plaintext is the record's
/// JSON. The version byte is authenticated too (it is part of the associated data).
struct LibrarySeal {
    static let version: UInt8 = 1
    /// Fixed HKDF info label: this key seals library records and nothing else, so it can never
    /// equal a key the device key derives for any other purpose (the licence's key unwrap uses
    /// ECDH, never the raw scalar).
    static let info = Data("mediadrm offline library record seal v1".utf8)

    private let key: SecretKey

    init(deviceKey: ECP256.KeyAgreement.PrivateKey) throws(OfflineError) {
        do {
            key = try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: deviceKey.rawRepresentation), salt: Data(),
                                           info: Self.info, outputByteCount: 32)
        } catch {
            throw OfflineError(.library, "the library's record key could not be derived from its device key")
        }
    }

    static func associatedData(name: String) -> Data {
        Data([version]) + Data(name.utf8)
    }

    func seal(_ record: JSONObject, name: String) throws(OfflineError) -> Data {
        do {
            let box = try AESCipher.GCM.seal(JSONWriter.write(.object(record), options: [.sortedKeys]), using: key,
                                             authenticating: Self.associatedData(name: name))
            return Data([Self.version]) + box.combined
        } catch {
            throw OfflineError(.library, "the library record '\(name)' could not be sealed")
        }
    }

    /// The record's JSON object, or nil when the bytes are not a record sealed under this name
    /// by this library's device key (changed, truncated, another record's, another library's).
    func open(_ stored: Data, name: String) -> JSONObject? {
        guard stored.first == Self.version,
              let box = try? AESCipher.GCM.SealedBox(combined: stored.dropFirst()),
              let plain = try? AESCipher.GCM.open(box, using: key, authenticating: Self.associatedData(name: name)),
              case .object(let object)? = try? JSONParser.parse(plain) else { return nil }
        return object
    }
}
