import Foundation
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMOffline

/// The client of the KAS's offline licence routes (docs/offline.md; the KAS side is its
/// `OfflineLicenseService`), over the media service's transport and
/// status mapping (`KASMediaService`): the licence-signing keys (no credential), issuing,
/// renewing and releasing (bearer). Answers are read with MediaDRMOffline's strict readers; a
/// refusal keeps only its known code.
struct OfflineLicenseClient {
    let media: KASMediaService

    /// A licence id is one path segment of the base64url alphabet, so it can never change the route.
    static func checkLicenseID(_ id: String) throws(OfflineError) {
        guard KASMediaService.isSafeSessionID(id) else {
            throw OfflineError(.keyService, "the key service's licence id is not a safe path segment")
        }
    }

    /// `GET /media/v1/offline-signing-keys`: the JWKS, checked to hold at least one usable ES256
    /// key, and whether the channel authenticated the key service (https) for the pin.
    func signingKeys() async throws(OfflineError) -> FetchedSigningKeys {
        let request = TransportRequest(url: "\(media.baseURL)/media/v1/offline-signing-keys", maxResponseBytes: 256 << 10)
        let response: TransportResponse
        do {
            response = try await media.send(request, route: "offline-signing-keys")
        } catch {
            throw OfflineError.keyService(error)
        }
        guard case .object(let object)? = try? JSONParser.parse(response.body),
              let set = try? JWKSet(jsonObject: object, skippingUnsupportedKeys: true),
              set.keys.contains(where: { $0.algorithm == .es256 && $0.keyID != nil }) else {
            throw OfflineError(.keyService, "the key service's licence-signing keys are not a JWKS with an ES256 key")
        }
        // The transport refuses plain http except to loopback and always verifies https, so the
        // scheme of the URL the keys came from says whether anything authenticated them.
        let authenticated = (try? TransportURL.validate(request.url))?.isTLS ?? false
        return FetchedSigningKeys(keyService: media.baseURL, jwks: object, authenticated: authenticated)
    }

    /// `POST /media/v1/offline-license`.
    func issue(_ body: OfflineLicenseRequest) async throws(OfflineError) -> OfflineLicenseAnswer {
        try await answer(route: "offline-license", body: body.jsonValue)
    }

    /// `POST /media/v1/offline-license/{licenseId}/renew`.
    func renew(licenseID: String, report: OfflinePlayReport) async throws(OfflineError) -> OfflineLicenseAnswer {
        try Self.checkLicenseID(licenseID)
        return try await answer(route: "offline-license/\(licenseID)/renew", body: report.jsonValue)
    }

    /// `DELETE /media/v1/offline-license/{licenseId}`: 204 on success.
    func release(licenseID: String, report: OfflinePlayReport) async throws(OfflineError) {
        try Self.checkLicenseID(licenseID)
        let request = TransportRequest(method: .delete, url: "\(media.baseURL)/media/v1/offline-license/\(licenseID)",
                                       headers: ["Content-Type": "application/json"],
                                       body: JSONWriter.write(report.jsonValue, options: [.sortedKeys]),
                                       credential: media.credential, maxResponseBytes: 64 << 10)
        do {
            _ = try await media.send(request, route: "offline-license release")
        } catch {
            throw OfflineError.keyService(error)
        }
    }

    private func answer(route: String, body: JSONValue) async throws(OfflineError) -> OfflineLicenseAnswer {
        let object: JSONObject
        do {
            object = try await media.post(route, body)
        } catch {
            throw OfflineError.keyService(error)
        }
        do {
            let answer = try OfflineLicenseAnswer(json: .object(object))
            try Self.checkLicenseID(answer.licenseID)
            return answer
        } catch let error as OfflineError {
            throw error
        } catch {
            throw OfflineError(.keyService, "the key service's licence answer is not an offline licence answer")
        }
    }
}
