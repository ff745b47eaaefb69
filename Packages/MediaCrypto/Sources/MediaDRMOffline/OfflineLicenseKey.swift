// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF

/// One component's content key in an offline licence (`keys[]`, docs/offline.md): wrapped to the
/// device key exactly as the open path wraps to a client key (`ECWrap`: ECDH P-256 with a fresh
/// ephemeral key, HKDF-SHA256 with salt SHA-256("TDF"), AES-256-GCM; docs/protocol.md).
public struct OfflineLicenseKey: Sendable, Equatable {
    /// The member names, each written once.
    static let members: Set<String> = ["component", "kid", "ephemeralPublicKey", "wrappedKey"]

    public var component: MediaComponentKind
    /// Lower-case hex of the component's `keyBinding` (fps-v2 §5.3, in the policy's
    /// `arkavo:components`): names the key without revealing it, and lets the player check the
    /// unwrapped key against the package it holds.
    public var keyID: String
    public var ephemeralPublicKey: ECP256.KeyAgreement.PublicKey
    /// `nonce ‖ ciphertext ‖ tag`.
    public var wrappedKey: Data

    public init(component: MediaComponentKind, keyID: String, ephemeralPublicKey: ECP256.KeyAgreement.PublicKey,
                wrappedKey: Data) {
        self.component = component
        self.keyID = keyID
        self.ephemeralPublicKey = ephemeralPublicKey
        self.wrappedKey = wrappedKey
    }

    /// Wraps `key` to the device under a fresh ephemeral key.
    public init(component: MediaComponentKind, keyID: String, key: SecretKey,
                device: OfflineDeviceKey) throws(OfflineLicenseError) {
        let wrapped: ECWrap.WrappedKey
        do {
            wrapped = try ECWrap.wrap(key, to: device.publicKey)
        } catch {
            throw OfflineLicenseError(.keyUnwrapFailed, "the content key could not be wrapped to the device key")
        }
        self.init(component: component, keyID: keyID, ephemeralPublicKey: wrapped.ephemeralPublicKey,
                  wrappedKey: wrapped.wrappedKey)
    }

    /// The content key, with the device's private key.
    public func unwrap(with deviceKey: ECP256.KeyAgreement.PrivateKey) throws(OfflineLicenseError) -> SecretKey {
        do {
            return try ECWrap.unwrap(wrappedKey, ephemeralPublicKey: ephemeralPublicKey, with: deviceKey)
        } catch {
            throw OfflineLicenseError(.keyUnwrapFailed, "the \(component.rawValue) key does not open with this device's key")
        }
    }

    public var jsonValue: JSONValue {
        .object(JSONObject([
            ("component", .string(component.rawValue)), ("kid", .string(keyID)),
            ("ephemeralPublicKey", .string(ephemeralPublicKey.pemRepresentation)),
            ("wrappedKey", .string(Base64.encode(wrappedKey))),
        ]))
    }

    /// Reads one `keys[]` entry strictly (closed schema, a P-256 PEM, 44 bytes of wrapped key).
    public init(json: JSONValue) throws(OfflineLicenseError) {
        guard case .object(let object) = json, object.keys.allSatisfy(Self.members.contains) else {
            throw OfflineLicenseError(.malformed, "keys[] entries must be objects of component, kid, ephemeralPublicKey, wrappedKey")
        }
        guard case .string(let name)? = object["component"], let kind = MediaComponentKind(rawValue: name) else {
            throw OfflineLicenseError(.malformed, "keys[].component must be video or audio")
        }
        guard case .string(let kid)? = object["kid"], !kid.isEmpty, kid.utf8.count <= 128,
              kid.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw OfflineLicenseError(.malformed, "keys[].kid must be lower-case hex")
        }
        guard case .string(let pem)? = object["ephemeralPublicKey"],
              let ephemeral = try? ECP256.KeyAgreement.PublicKey(pemRepresentation: pem) else {
            throw OfflineLicenseError(.malformed, "keys[].ephemeralPublicKey must be a P-256 public key in PEM")
        }
        // nonce (12) ‖ 16-byte key ‖ tag (16).
        guard case .string(let text)? = object["wrappedKey"], let wrapped = try? Base64.decode(text),
              wrapped.count == 44 else {
            throw OfflineLicenseError(.malformed, "keys[].wrappedKey must be base64 of nonce, wrapped 16-byte key and tag")
        }
        self.init(component: kind, keyID: kid, ephemeralPublicKey: ephemeral, wrappedKey: wrapped)
    }
}
