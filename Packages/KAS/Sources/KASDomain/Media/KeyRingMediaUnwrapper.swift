import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMTDF

/// Unwraps `wrapped` key access objects with the server's key ring: the kid the object names,
/// or (without one) the active RSA key and then retired ones, so content packaged before a
/// rotation keeps playing. The ring is read from the holder on every call, so a reload (SIGHUP)
/// applies to the next request.
package struct KeyRingMediaUnwrapper: MediaKeyUnwrapper {
    private let holder: KeyRingHolder

    public init(_ holder: KeyRingHolder) { self.holder = holder }

    public func unwrap(_ keyAccess: KeyAccessObject) throws(TDFError) -> SecretKey {
        guard keyAccess.type == .wrapped else { throw TDFError(.unsupported, "only wrapped key access is accepted here") }
        let wrapped: [UInt8]
        do {
            wrapped = Array(try Base64.decode(keyAccess.wrappedKey))
        } catch {
            throw TDFError(.malformedManifest, "keyAccess.wrappedKey is not canonical base64")
        }
        do {
            return SecretKey(data: try holder.current.unwrapRSA(wrapped, kid: keyAccess.kid).key)
        } catch {
            throw TDFError(.keyUnwrapFailure, "no key of the ring unwraps this key access object")
        }
    }
}
