import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// The forms of the media protocol's ids (docs/protocol.md), each rule written once.
package enum MediaSessionID {
    /// 32 random bytes, base64url: opaque, a single safe path segment, and never derived from
    /// the viewer or asset.
    static func make() throws(MediaFailure) -> String {
        do {
            return Base64URL.encode(try SecureRandom.bytes(count: 32))
        } catch {
            throw .unavailable(.randomGenerator)
        }
    }

    /// The store keeps SHA-256 of the id: a copy of the database holds no usable session id.
    static func hash(_ sessionID: String) -> String { Hex.encode(SHA256Digest.hash(data: Data(sessionID.utf8))) }

    /// How the media store keys the playback a client named (`playbackId`): SHA-256 of it, as for
    /// session ids, so a copy of the store holds no playback id (a delivery playback's id opens
    /// its licence URLs and renewals).
    static func playbackKey(clientPlaybackID id: String) -> String { "client:" + hash(id) }

    /// What `make` produces: 43 base64url characters.
    package static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy(isBase64URLByte)
    }

    /// A client's `playbackId`: 1 to 128 base64url characters.
    package static func isPlaybackID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy(isBase64URLByte)
    }

    /// A component id as a session or key request may name it: 1 to 32 lower-case ASCII letters.
    package static func isComponentID(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count) && text.utf8.allSatisfy { (0x61...0x7A).contains($0) }
    }

    private static func isBase64URLByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
