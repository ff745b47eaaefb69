import Foundation
@testable import KASDomain
import MediaDRMJSON

/// DRM-X's backend call as the KAS reads it before any store is touched (docs/delivery.md
/// "DRM-X's backend call"). Input: a first line, the `Authorization` header value, read by
/// `BasicCredential`; then the body, parsed strictly and read by `BackendPlaybackRequest`.
/// What either accepts must keep its rules: an id without `:`, a viewer of the client's issuer
/// with a subject of 1 to 256 bytes and no claim but the four it reads.
enum BackendRequestTarget {
    static let issuer = "https://backend.fuzz.example"
    static let claims: Set<String> = ["sub", "iss", "entitlements", "rentals"]

    static let target = FuzzTarget("kas-backend-request", "BasicCredential and BackendPlaybackRequest") { input throws(FuzzViolation) in
        let newline = input.firstIndex(of: 0x0A) ?? input.endIndex
        if let header = String(validating: input[..<newline], as: UTF8.self),
           let credential = BasicCredential(authorizationHeaderValues: [header]),
           credential.id.isEmpty || credential.id.contains(":") {
            throw FuzzViolation("kas-backend-request", "a Basic credential's id is empty or holds ':'")
        }
        guard newline < input.endIndex, let json = try? JSONParser.parse(Array(input[(newline + 1)...])),
              let request = try? BackendPlaybackRequest(json: json, issuer: issuer)
        else { return .refused }
        let viewer = request.viewer
        guard viewer.issuer == issuer, (1...BackendPlaybackRequest.maximumSubjectBytes).contains(viewer.subject.utf8.count),
              Set(viewer.claims.keys).isSubset(of: claims), request.playback.live != nil
        else { throw FuzzViolation("kas-backend-request", "an accepted request breaks its rules") }
        return .accepted
    }
}
