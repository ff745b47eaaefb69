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
}
