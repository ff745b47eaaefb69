import Foundation
import MediaDRMJSON

extension DeliveryService {
    /// `GET /v2/media/{assetId}?token=JWT` (a delivery token, `DeliveryTokenKey`) or with a
    /// bearer header: the JW Platform shape (docs/delivery.md#the-delivery-api). It describes and
    /// creates nothing: each source names where to start a playback. 401 without a valid
    /// credential, 404 unknown asset, 403 with the reason for a refused viewer.
    public func describe(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        if let token = request.queryValue("token") {
            guard let tokenKey else { throw HTTPError(.unauthorized, reason: "delivery tokens are not configured") }
            context.identity = try tokenKey.verify(token, resource: request.path, now: clock())
            return try description(request, context: &context)
        }
        do {
            return try authentication.handle(request, context: &context) { request, context in
                try self.description(request, context: &context)
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.internalError
        }
    }

    private func description(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try media.authenticate(&context)
        let entry = try entry(context.parameters["assetId"])
        let now = clock()
        if let denial = try refusal(for: try policy(of: entry), viewer: viewer, request: request, now: now) {
            audit("delivery_describe", viewer: viewer, asset: entry.assetID, decision: .deny, reason: denial.rawValue, now: now)
            media.countDenial(denial.rawValue)
            throw HTTPError(.forbidden, reason: "platform refused", code: denial.rawValue)
        }
        let file = mediaURL(entry, now: now).url
        let playbackURL = publicURL + "/media/v1/playback"
        func source(_ drm: String, _ members: [(String, JSONValue)]) -> JSONValue {
            .object(JSONObject([
                ("file", .string(file)),
                ("type", .string("application/vnd.apple.mpegurl")),
                ("drm", .object(JSONObject([(drm, .object(JSONObject(members)))]))),
            ]))
        }
        var sources = [source("com.arkavo.tdf", [("kasUrl", .string(publicURL)), ("playbackUrl", .string(playbackURL))])]
        if entry.profile == .fpsV2 {
            // The raw SPC/CKC URL is signed per playback: a player posts to playbackUrl
            // (drmSystem fairplay) and uses the licenseUrl it gets as processSpcUrl.
            sources.append(source("fairplay", [("processSpcUrl", .string(playbackURL)), ("playbackUrl", .string(playbackURL)),
                                               ("certificateUrl", .string(publicURL + "/media/v1/certificate"))]))
            sources.append(source("org.w3.clearkey", [("licenseUrl", .string(publicURL + "/media/v1/key-request")),
                                                      ("playbackUrl", .string(playbackURL))]))
        }
        sources.shuffle()
        return .json(.object(JSONObject([
            ("title", .string(entry.title)),
            ("kind", .string("Single Item")),
            ("playlist", .array([.object(JSONObject([
                ("mediaid", .string(entry.assetID)),
                ("title", .string(entry.title)),
                ("duration", .number(JSONNumber(Int64(entry.duration.rounded())))),
                ("sources", .array(sources)),
                ("tracks", .array([])),
            ]))])),
        ])))
    }
}
