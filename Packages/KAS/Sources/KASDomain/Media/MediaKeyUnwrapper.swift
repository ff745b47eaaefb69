import MediaDRMCrypto
import MediaDRMTDF

/// Unwraps the content key of one `wrapped` key access object with the KAS's private keys.
/// Implemented over the key ring (kid lookup, rotation) by the app assembly, and over plain
/// private keys here.
public protocol MediaKeyUnwrapper: Sendable {
    func unwrap(_ keyAccess: KeyAccessObject) throws(TDFError) -> SecretKey
}

/// Tries each private key in order (the active key first, then retired ones).
package struct PrivateKeyUnwrapper: MediaKeyUnwrapper {
    private let keys: [KASPrivateKey]

    public init(_ keys: [KASPrivateKey]) { self.keys = keys }

    public func unwrap(_ keyAccess: KeyAccessObject) throws(TDFError) -> SecretKey {
        for key in keys {
            if let unwrapped = try? keyAccess.unwrap(with: key) { return unwrapped }
        }
        throw TDFError(.keyUnwrapFailure, "no KAS key unwraps this key access object")
    }
}
