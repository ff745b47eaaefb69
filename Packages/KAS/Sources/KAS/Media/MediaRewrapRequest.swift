import MediaDRMJSON
import MediaDRMMedia

/// The body of `POST /media/v1/rewrap` as the KAS reads it: exactly `MediaRewrapBody`'s members;
/// `sessionId`, and the OpenTDF bulk request (`clientPublicKey`, `requests`) read by the same
/// `UnsignedRewrapRequest` reader as the OpenTDF rewrap routes, with this route's bounds
/// (`MediaRewrapBody.maximumKeyAccessObjects`, `maximumPolicies`). The legacy v1 shape is not
/// accepted here: no client of this route ever sent it.
struct MediaRewrapRequest {
    let sessionID: String
    let bulk: UnsignedRewrapRequest

    static let limits: UnsignedRewrapRequest.Limits = {
        var limits = UnsignedRewrapRequest.Limits()
        limits.maximumPolicies = MediaRewrapBody.maximumPolicies
        limits.maximumKeyAccessObjectsPerPolicy = MediaRewrapBody.maximumKeyAccessObjects
        limits.maximumKeyAccessObjects = MediaRewrapBody.maximumKeyAccessObjects
        return limits
    }()

    /// The answer to a request over the bounds: 413 with the bounds named, so a client knows how
    /// to split it.
    static let tooLarge = KeyRequestFailure(
        error: HTTPError(.payloadTooLarge, reason: "too many key access objects: at most \(MediaRewrapBody.maximumKeyAccessObjects) "
                         + "per request over at most \(MediaRewrapBody.maximumPolicies) policies; split the request"),
        reason: "too_many_key_access_objects", decision: .deny)

    init(_ value: JSONValue) throws(KeyRequestFailure) {
        guard case .object(let body) = value else { throw .malformedRewrap("malformed_body") }
        guard body.keys.allSatisfy(MediaRewrapBody.members.contains) else { throw .malformedRewrap("unknown_member") }
        guard case .string(let session)? = body["sessionId"], case .array(let requests)? = body["requests"], !requests.isEmpty
        else { throw .malformedRewrap("missing_member") }
        do {
            bulk = try UnsignedRewrapRequest(json: body, limits: Self.limits)
        } catch {
            throw error.code == .tooLarge ? Self.tooLarge : .malformedRewrap("malformed_bulk_request")
        }
        sessionID = session
    }
}

extension KeyRequestFailure {
    /// A rewrap body of the wrong shape: 400 `malformed rewrap request`, the cause in the audit log.
    static func malformedRewrap(_ reason: String) -> KeyRequestFailure {
        KeyRequestFailure(error: HTTPError(.badRequest, reason: "malformed rewrap request"), reason: reason, decision: .deny)
    }
}
