/// A media session's key delivery path (docs/protocol.md, session `protocol`).
public enum MediaProtocol: String, Sendable, Equatable, CaseIterable {
    /// `spcData`: a CKC from the FairPlay Streaming Server SDK.
    case fairplay
    /// `clientPublicKey`: the key rewrapped to a P-256 client key (the open path).
    case tdf
}
