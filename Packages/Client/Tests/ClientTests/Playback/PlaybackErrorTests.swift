// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMMedia
import Foundation
import MediaDRMFPSv2
import MediaDRMJSON
import Testing
@testable import Client

@Suite struct PlaybackErrorTests {
    /// fps-v2 §10.5.
    @Test(arguments: [
        (400, PlaybackError.Code.malformed), (422, .malformed), (401, .unauthorized), (403, .denied), (404, .denied),
        (429, .concurrencyLimit), (500, .transient), (502, .transient), (503, .transient), (504, .transient),
        (409, .malformed), (418, .malformed), (501, .malformed), (299, .malformed),
    ])
    func statusesMapAsTheSpecificationSays(status: Int, code: PlaybackError.Code) {
        let error = PlaybackError.keyService(status: status, route: "key-request")
        #expect(error.code == code)
        #expect(error.status == status)
        #expect(error.isTransient == (code == .transient))
    }

    @Test func aTransportStatusIsMappedAndARedirectIsATransportFailure() {
        #expect(PlaybackError.from(TransportError(.httpStatus, "x", status: 429), route: "r").code == .concurrencyLimit)
        #expect(PlaybackError.from(TransportError(.redirectRefused, "x", status: 302), route: "r").code == .transport)
        #expect(PlaybackError.from(TransportError(.pinMismatch, "x"), route: "r").code == .transport)
    }

    /// §10.2: 60 ... 86,400 is a lease; below 60 malformed; above, or not an integer, no lease.
    @Test func leaseSecondsFollowTheSpecification() throws {
        func lease(_ text: String) throws(PlaybackError) -> Int? {
            let value = try? JSONParser.parse(Array(text.utf8))
            return try KASMediaService.lease(value)
        }
        #expect(try lease(#"{"lease_seconds":60}"#) == 60)
        #expect(try lease(#"{"lease_seconds":86400}"#) == 86_400)
        #expect(try lease(#"{"lease_seconds":86401}"#) == nil)
        #expect(try lease(#"{"lease_seconds":90.5}"#) == nil)
        #expect(try lease(#"{"lease_seconds":"600"}"#) == nil)
        #expect(try lease(#"{}"#) == nil)
        #expect(throws: PlaybackError(.malformed, "")) { try lease(#"{"lease_seconds":59}"#) }
    }

    @Test func sessionIDsMustBeOneSafePathSegment() {
        #expect(KASMediaService.isSafeSessionID("34kzJf8VXOvTaRuS5XEhnHTa_dtb7XuaIcRrP8vNhhc"))
        for bad in ["", "../x", "a/b", "a?b", "a b", "a%2F", String(repeating: "a", count: 257)] {
            #expect(!KASMediaService.isSafeSessionID(bad))
        }
    }

    /// The refusal a key-service answer carries: a known code of a 403/429 body, the 401
    /// challenge; never an unknown code, a token code from a body, or any other server text.
    @Test func refusalsAreReadFromKnownCodesOnly() {
        func refusal(_ status: Int, _ body: String, challenge: String? = nil) -> PlaybackError.Refusal? {
            let headers: TransportHeaders = challenge.map { ["WWW-Authenticate": $0] } ?? [:]
            return PlaybackError.Refusal(status: status, headers: headers, body: Data(body.utf8))
        }
        for denial in MediaDenial.allCases {
            #expect(refusal(403, #"{"error":"platform refused","reason":"\#(denial.rawValue)"}"#) == .denied(denial))
        }
        #expect(refusal(429, #"{"error":"concurrency limit","reason":"concurrent_streams"}"#) == .denied(.concurrentStreams))
        #expect(Set(PlaybackError.Refusal.allCases.map(\.code)).count == MediaDenial.allCases.count + 2)
        #expect(refusal(403, #"{"error":"platform refused","reason":"<script>"}"#) == nil)
        #expect(refusal(403, #"{"error":"platform refused","reason":"token_expired"}"#) == nil)
        #expect(refusal(403, #"{"error":"manifest refused"}"#) == nil)
        #expect(refusal(403, "not json") == nil)
        #expect(refusal(500, #"{"reason":"not_entitled"}"#) == nil)
        #expect(refusal(401, "{}", challenge: #"Bearer error="invalid_token", error_description="expired""#) == .tokenExpired)
        #expect(refusal(401, "{}", challenge: #"Bearer error="invalid_token", error_description="invalid""#) == .tokenInvalid)
        #expect(refusal(401, "{}", challenge: "Bearer") == nil)
        #expect(refusal(401, "{}") == nil)

        let error = PlaybackError.keyService(status: 403, route: "key-request", refusal: .denied(.rentalPlaybackWindowClosed))
        #expect(error.code == .denied && error.refusal == .denied(.rentalPlaybackWindowClosed))
        #expect(error.reason == "the key service answered key-request with HTTP 403: "
                + PlaybackError.Refusal.denied(.rentalPlaybackWindowClosed).explanation)
        #expect(error.description.hasSuffix("[refusal rental_playback_window_closed]"))
    }
}
