import Foundation
import MediaDRMJSON

/// The answer of `POST /media/v1/playback` (docs/delivery.md): where the media is, until when
/// its URL is valid, where keys and licences come from, and how the playback ends. The same
/// shape answers a DRM-X style playback-session endpoint (`DRMXLicenseProfile`).
///
/// `sessionID` is a secret (it authorizes key requests): no description of a grant shows it.
public struct PlaybackGrant: Sendable, CustomStringConvertible, CustomReflectable {
    public let playbackID: String
    public let assetID: String
    public let title: String?
    public let drmSystem: DRMSystem
    /// The signed (or plain) media URL: an fps-v2 package or a tdf-hls master playlist.
    public let mediaURL: String
    /// Seconds since the Unix epoch after which `mediaURL` is refused by the origin.
    public let mediaURLExpiresAt: Double
    /// FairPlay only: the application certificate.
    public let certificateURL: String?
    /// FairPlay: the raw SPC/CKC URL; tdf: the key service base; ClearKey: the licence URL.
    public let licenseURL: String
    let sessionID: String?
    public let heartbeatURL: String?
    public let releaseURL: String
    /// Seconds since the Unix epoch when the playback itself ends.
    public let expiresAt: Double?

    static let answer = "playback answer"

    /// Parses an answer body; every URL must be one the transport accepts.
    public init(json body: Data) throws(PlaybackError) {
        let object = try DeliveryJSON.object(body, answer: Self.answer)
        typealias Fields = (String, String, String?, String, String, String?, String, String?, String?, String)
        let fields = try DeliveryJSON.read(Self.answer) { () throws(JSONError) -> Fields in
            (try object.requireString("playbackId"), try object.requireString("assetId"), try object.optionalString("title"),
             try object.requireString("drmSystem"), try object.requireString("mediaUrl"),
             try object.optionalString("certificateUrl"), try object.requireString("licenseUrl"),
             try object.optionalString("sessionId"), try object.optionalString("heartbeatUrl"),
             try object.requireString("releaseUrl"))
        }
        guard Self.isSafeID(fields.0) else {
            throw PlaybackError(.malformed, "the \(Self.answer): playbackId is not 1 to 128 base64url characters")
        }
        guard let system = DRMSystem(rawValue: fields.3) else {
            throw PlaybackError(.malformed, "the \(Self.answer): drmSystem is not fairplay, tdf or clearkey")
        }
        playbackID = fields.0
        assetID = fields.1
        title = fields.2
        drmSystem = system
        mediaURL = try DeliveryURL.check(fields.4, field: "\(Self.answer)'s mediaUrl")
        mediaURLExpiresAt = try DeliveryJSON.timestamp(object, "mediaUrlExpiresAt", answer: Self.answer)
        certificateURL = try fields.5.map { (text) throws(PlaybackError) in
            try DeliveryURL.check(text, field: "\(Self.answer)'s certificateUrl")
        }
        licenseURL = try DeliveryURL.check(fields.6, field: "\(Self.answer)'s licenseUrl")
        sessionID = fields.7
        heartbeatURL = try fields.8.map { (text) throws(PlaybackError) in
            try DeliveryURL.check(text, field: "\(Self.answer)'s heartbeatUrl")
        }
        releaseURL = try DeliveryURL.check(fields.9, field: "\(Self.answer)'s releaseUrl")
        expiresAt = object["expiresAt"] == nil ? nil : try DeliveryJSON.timestamp(object, "expiresAt", answer: Self.answer)
    }

    /// A `playbackId` that can be a path segment and a KAS session `playbackId` (docs/protocol.md).
    static func isSafeID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    public var description: String {
        "PlaybackGrant(\(drmSystem.rawValue), media \(DeliveryURL.withoutQuery(mediaURL)), session redacted)"
    }

    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// The answer of `POST /media/v1/playback/{playbackId}/media-url`: a fresh media URL.
public struct MediaURLRenewal: Sendable, Equatable {
    public let mediaURL: String
    public let expiresAt: Double

    static let answer = "media URL renewal answer"

    public init(mediaURL: String, expiresAt: Double) {
        self.mediaURL = mediaURL
        self.expiresAt = expiresAt
    }

    public init(json body: Data) throws(PlaybackError) {
        let object = try DeliveryJSON.object(body, answer: Self.answer)
        let url = try DeliveryJSON.read(Self.answer) { () throws(JSONError) in try object.requireString("mediaUrl") }
        mediaURL = try DeliveryURL.check(url, field: "\(Self.answer)'s mediaUrl")
        expiresAt = try DeliveryJSON.timestamp(object, "mediaUrlExpiresAt", answer: Self.answer)
    }
}
