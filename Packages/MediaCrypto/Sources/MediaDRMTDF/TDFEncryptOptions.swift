import Foundation

/// What a Standard TDF is written with.
public struct TDFEncryptOptions: Sendable {
    /// The KAS base URL written into the key access object.
    public var kasURL: String
    /// RSA gives a `wrapped` key access object, P-256 an `ec-wrapped` one.
    public var kasPublicKey: KASPublicKey
    /// The KAS key id, when the KAS publishes one.
    public var kid: String?
    public var policy: TDFPolicy
    /// Plaintext bytes per AES-256-GCM segment (default 2 MiB), within the limits' range.
    public var segmentSize: Int
    /// MIME type of the plaintext, stored in `payload.mimeType`.
    public var mimeType: String
    /// Form of the policy binding; `.hex` is what the OpenTDF Go SDK writes for Standard TDF.
    public var bindingForm: TDFBinding.Form

    public init(kasURL: String, kasPublicKey: KASPublicKey, kid: String? = nil, policy: TDFPolicy = TDFPolicy(),
                segmentSize: Int = TDFArchive.defaultSegmentSize, mimeType: String = TDFArchive.defaultMimeType,
                bindingForm: TDFBinding.Form = .hex) {
        self.kasURL = kasURL
        self.kasPublicKey = kasPublicKey
        self.kid = kid
        self.policy = policy
        self.segmentSize = segmentSize
        self.mimeType = mimeType
        self.bindingForm = bindingForm
    }
}
