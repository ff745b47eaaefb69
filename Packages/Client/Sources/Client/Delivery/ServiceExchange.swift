// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// One request to a delivery or licence service and how its answer maps to `PlaybackError`:
/// statuses by fps-v2 §10.5 (`PlaybackError.keyService`), with the refusal code of a 401, 403
/// or 429 answer kept (docs/protocol.md#refusal-codes) and no other server text; a redirect is
/// refused (the transport never follows one) and reported as such.
enum ServiceExchange {
    static let refusalStatuses: Set<Int> = [401, 403, 429]

    static func send(_ client: HTTPClient, _ request: TransportRequest, route: String) async throws(PlaybackError) -> TransportResponse {
        var request = request
        request.extraAcceptedStatuses.formUnion(refusalStatuses)
        let response: TransportResponse
        do {
            response = try await client.send(request)
        } catch {
            throw PlaybackError.from(error, route: route)
        }
        return try check(response, route: route)
    }

    static func sendSynchronously(_ client: HTTPClient, _ request: TransportRequest,
                                  route: String) throws(PlaybackError) -> TransportResponse {
        var request = request
        request.extraAcceptedStatuses.formUnion(refusalStatuses)
        let response: TransportResponse
        do {
            response = try client.sendSynchronously(request)
        } catch {
            throw PlaybackError.from(error, route: route)
        }
        return try check(response, route: route)
    }

    private static func check(_ response: TransportResponse, route: String) throws(PlaybackError) -> TransportResponse {
        guard refusalStatuses.contains(response.status) else { return response }
        throw PlaybackError.keyService(status: response.status, route: route, refusal: PlaybackError.Refusal(
            status: response.status, headers: response.headers, body: response.body))
    }
}
