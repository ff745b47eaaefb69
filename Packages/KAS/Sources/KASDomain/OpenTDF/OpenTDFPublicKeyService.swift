import Foundation

/// The public-key route: `algorithm` rsa:2048 (default) | ec:secp256r1, optional `kid`, `fmt`
/// empty or `pkcs8`/`pem` (the SPKI PEM is the only format served), `v` ignored.
package struct OpenTDFPublicKeyService: Sendable {
    public var keys: any OpenTDFKeyProvider

    public init(keys: any OpenTDFKeyProvider) {
        self.keys = keys
    }

    public func publicKey(_ request: PublicKeyRequest, kid: String? = nil) throws(OpenTDFError) -> PublicKeyResponse {
        let algorithm = try KeyAlgorithm(requested: request.algorithm)
        switch request.fmt.lowercased() {
        case "", "pkcs8", "pem": break
        default: throw OpenTDFError(.malformedRequest, "fmt must be pkcs8 (PEM); other formats are not served")
        }
        let wanted = kid.flatMap { $0.isEmpty ? nil : $0 }
        guard let key = keys.publicKey(algorithm: algorithm, kid: wanted) else {
            throw OpenTDFError(.notFound, wanted == nil ? "no KAS key for this algorithm" : "no KAS key with this kid and algorithm")
        }
        return PublicKeyResponse(publicKey: key.pem, kid: key.kid)
    }
}
