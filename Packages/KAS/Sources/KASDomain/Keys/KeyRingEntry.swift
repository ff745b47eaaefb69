import Foundation

/// What the index records about one key-access key. The private key itself lives in
/// `<kid>.pem` beside the index; the file name is derived from the kid, never read from the index.
package struct KeyRingEntry: Sendable, Equatable {
    public let kid: String
    public let algorithm: KeyAlgorithm
    public let created: Date
    /// When the key stopped being the active key of its algorithm; nil for the active key.
    public let retired: Date?

    public init(kid: String, algorithm: KeyAlgorithm, created: Date, retired: Date?) {
        self.kid = kid
        self.algorithm = algorithm
        self.created = created
        self.retired = retired
    }

    public var isActive: Bool { retired == nil }
}
