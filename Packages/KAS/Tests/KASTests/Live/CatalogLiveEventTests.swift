import Foundation
@testable import KASDomain
import MediaDRMMedia
import Testing

/// A live title's event: the stores' text read back exactly, anything else unreadable, and its
/// window and blackouts at their bounds.
@Suite struct CatalogLiveEventTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theStoresTextReadsBackAndNothingElseDoes() {
        let event = CatalogLiveEvent(startsAt: Self.start, endsAt: Self.start.addingTimeInterval(5400), blackoutRegions: ["DE", "AT"])
        #expect(event.text == #"{"blackoutRegions":["DE","AT"],"endsAt":1800005400,"startsAt":1800000000}"#)
        #expect(CatalogLiveEvent(text: event.text) == event)
        #expect(CatalogLiveEvent(text: CatalogLiveEvent().text) == CatalogLiveEvent())
        for text in ["", "{", "[]", "{}", #"{"blackoutRegions":"DE"}"#, #"{"blackoutRegions":[1]}"#,
                     #"{"blackoutRegions":[],"startsAt":"2026-12-05T19:00:00Z"}"#, #"{"blackoutRegions":[],"endsAt":1.5}"#,
                     #"{"blackoutRegions":[],"endsAt":1e400}"#, String(repeating: "[", count: 10_000)] {
            #expect(CatalogLiveEvent(text: text) == nil, "\(text.prefix(40))")
        }
    }

    @Test func theWindowIncludesItsBoundsAndTheDVRRange() {
        let event = CatalogLiveEvent(startsAt: Self.start, endsAt: Self.start.addingTimeInterval(100), blackoutRegions: ["DE"])
        func at(_ seconds: TimeInterval, _ region: String? = "FR") -> MediaDenial? {
            event.refusal(region: region, now: Self.start.addingTimeInterval(seconds), dvrSeconds: 30)
        }
        #expect(at(-1) == .liveEventNotStarted)
        #expect(at(0) == nil && at(130) == nil)
        #expect(at(131) == .liveEventEnded)
        #expect(at(10, "DE") == .regionBlocked && at(10, "de") == .regionBlocked)
        #expect(at(10, nil) == .regionUnknown)
        // Open on both sides, without blackouts: nothing refused, an unknown region included.
        #expect(CatalogLiveEvent().refusal(region: nil, now: .distantFuture, dvrSeconds: 0) == nil)
    }
}
