// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// What a media session start asks for (`POST /media/v1/session/start`).
public struct MediaSessionRequest: Sendable, Equatable {
    /// The policy uuid (fps-v2 §10.3).
    public var assetID: String
    /// `tdf` for the open path.
    public var `protocol`: String
    /// One per playback, shared by its components' sessions (one concurrency slot).
    public var playbackID: String
    public var component: String

    public init(assetID: String, protocol: String = "tdf", playbackID: String, component: String) {
        self.assetID = assetID
        self.protocol = `protocol`
        self.playbackID = playbackID
        self.component = component
    }
}

/// A started media session.
public struct MediaSessionGrant: Sendable, Equatable {
    public let sessionID: String
    public let heartbeatSeconds: Int

    public init(sessionID: String, heartbeatSeconds: Int) {
        self.sessionID = sessionID
        self.heartbeatSeconds = heartbeatSeconds
    }
}

/// What the client puts in a key request on the open path (`POST /media/v1/key-request` with
/// `clientPublicKey`); the KAS reads it into its own `MediaKeyRequest`.
public struct KeyRequestParameters: Sendable {
    public var assetID: String
    public var component: String
    public var sessionID: String
    /// `manifest.json` exactly as packaged (§10.2).
    public var manifest: Data
    /// The PEM of a fresh ephemeral P-256 key, one per request.
    public var clientPublicKeyPEM: String

    public init(assetID: String, component: String, sessionID: String, manifest: Data, clientPublicKeyPEM: String) {
        self.assetID = assetID
        self.component = component
        self.sessionID = sessionID
        self.manifest = manifest
        self.clientPublicKeyPEM = clientPublicKeyPEM
    }
}

/// The key service's answer: the component key wrapped to the client's ephemeral key.
public struct MediaKeyResponse: Sendable {
    /// `nonce ‖ ciphertext ‖ tag`.
    public let wrappedKey: Data
    /// The KAS's ephemeral public key (PEM).
    public let sessionPublicKeyPEM: String
    /// `metadata.lease_seconds` when it is a lease (an integer from 60 to 86,400); nil for none.
    public let leaseSeconds: Int?

    public init(wrappedKey: Data, sessionPublicKeyPEM: String, leaseSeconds: Int?) {
        self.wrappedKey = wrappedKey
        self.sessionPublicKeyPEM = sessionPublicKeyPEM
        self.leaseSeconds = leaseSeconds
    }
}

/// The KAS media routes as a `ContentKeySession` uses them. `KASMediaService` speaks HTTP;
/// tests may supply their own.
public protocol MediaKeyService: Sendable {
    func startSession(_ request: MediaSessionRequest) async throws(PlaybackError) -> MediaSessionGrant
    func requestKey(_ request: KeyRequestParameters) async throws(PlaybackError) -> MediaKeyResponse
    /// Throws `.denied` (404) when the service has ended or expired the session.
    func heartbeat(sessionID: String) async throws(PlaybackError)
    func endSession(sessionID: String) async throws(PlaybackError)
}
