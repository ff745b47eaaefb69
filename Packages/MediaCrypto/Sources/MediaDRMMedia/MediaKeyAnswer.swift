// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMEncoding
import MediaDRMJSON

/// The success body of `POST /media/v1/key-request` (docs/protocol.md, fps-v2 §10.2):
/// `{"status": "success", "wrappedKey", "sessionPublicKey"?, "metadata": {"lease_seconds"}}`.
public struct MediaKeyAnswer: Sendable, Equatable {
    /// The largest `wrappedKey` read: a CKC is at most 1 MiB.
    public static let maxWrappedKeyBytes = 1 << 20

    /// The open path's `nonce ‖ ciphertext ‖ tag`, or the FairPlay CKC.
    public var wrappedKey: Data
    /// The KAS's ephemeral public key (PEM), on the open path only.
    public var sessionPublicKey: String?
    /// `metadata.lease_seconds` as sent, nil when absent or not an integer; what a lease means
    /// is the reader's rule (fps-v2 §10.2).
    public var leaseSeconds: Int64?

    public init(wrappedKey: Data, sessionPublicKey: String?, leaseSeconds: Int64?) {
        self.wrappedKey = wrappedKey
        self.sessionPublicKey = sessionPublicKey
        self.leaseSeconds = leaseSeconds
    }

    /// nil unless `status` is `success` and `wrappedKey` is canonical base64 of 1 byte to
    /// `maxWrappedKeyBytes`.
    public init?(json: JSONValue) {
        guard case .object(let object) = json, case .string("success")? = object["status"],
              case .string(let text)? = object["wrappedKey"], let wrapped = try? Base64.decode(text),
              (1...Self.maxWrappedKeyBytes).contains(wrapped.count) else { return nil }
        wrappedKey = wrapped
        if case .string(let pem)? = object["sessionPublicKey"] { sessionPublicKey = pem }
        leaseSeconds = Self.leaseSeconds(metadata: object["metadata"])
    }

    /// `lease_seconds` of a `metadata` value, nil when absent or not an integer.
    public static func leaseSeconds(metadata: JSONValue?) -> Int64? {
        guard case .object(let object)? = metadata, case .number(let number)? = object["lease_seconds"] else { return nil }
        return number.int64
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("status", .string("success")), ("wrappedKey", .string(Base64.encode(wrappedKey)))]
        if let sessionPublicKey { members.append(("sessionPublicKey", .string(sessionPublicKey))) }
        if let leaseSeconds { members.append(("metadata", .object(JSONObject([("lease_seconds", .number(JSONNumber(leaseSeconds)))])))) }
        return .object(JSONObject(members))
    }
}
