import MediaDRMJSON
import MediaDRMMedia

/// The body of `POST /media/v1/rewrap` as the KAS reads it: exactly `MediaRewrapBody`'s members;
/// `sessionId`, and the OpenTDF bulk request (`clientPublicKey`, `requests`) read by the same
/// `UnsignedRewrapRequest` reader as the OpenTDF rewrap routes, with this route's bounds
/// (`MediaRewrapBody.maximumKeyAccessObjects`, `maximumPolicies`); the client key a P-256 key, as
/// on the key request's open path. The legacy v1 shape is not accepted here: no client of this
/// route ever sent it.
package struct MediaRewrapRequest {
    let sessionID: String
    let bulk: UnsignedRewrapRequest
    let clientKey: ClientKey

    static let limits: UnsignedRewrapRequest.Limits = {
        var limits = UnsignedRewrapRequest.Limits()
        limits.maximumPolicies = MediaRewrapBody.maximumPolicies
        limits.maximumKeyAccessObjectsPerPolicy = MediaRewrapBody.maximumKeyAccessObjects
        limits.maximumKeyAccessObjects = MediaRewrapBody.maximumKeyAccessObjects
        return limits
    }()

    /// A request over the bounds: answered 413 with the bounds named, so a client knows how to
    /// split it.
    static let tooLarge = MediaFailure.tooLarge(
        code: "too_many_key_access_objects",
        message: "too many key access objects: at most \(MediaRewrapBody.maximumKeyAccessObjects) "
            + "per request over at most \(MediaRewrapBody.maximumPolicies) policies; split the request")

    /// A body of the wrong shape: answered 400 `malformed rewrap request`, `code` in the audit log.
    package static func malformed(_ code: String) -> MediaFailure {
        .malformed(code: code, message: "malformed rewrap request")
    }

    package init(_ value: JSONValue) throws(MediaFailure) {
        guard case .object(let body) = value else { throw Self.malformed("malformed_body") }
        guard body.keys.allSatisfy(MediaRewrapBody.members.contains) else { throw Self.malformed("unknown_member") }
        guard case .string(let session)? = body["sessionId"], case .array(let requests)? = body["requests"], !requests.isEmpty
        else { throw Self.malformed("missing_member") }
        do {
            bulk = try UnsignedRewrapRequest(json: body, limits: Self.limits)
        } catch {
            throw error.code == .tooLarge ? Self.tooLarge : Self.malformed("malformed_bulk_request")
        }
        guard let key = try? ClientKey(pem: bulk.clientPublicKey), case .ec = key else { throw Self.malformed("client_key") }
        clientKey = key
        sessionID = session
    }
}
