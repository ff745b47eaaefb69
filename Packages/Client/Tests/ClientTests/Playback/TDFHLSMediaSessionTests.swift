import Foundation
import Testing
@testable import Client

/// The tdf-hls media session's life, with a scripted key service and a manual clock: one session
/// for the rendition, a heartbeat every `heartbeatSeconds`, a heartbeat answered 404 failing the
/// playback and ending the session, and `stop()` ending it.
@Suite struct TDFHLSMediaSessionTests {
    @Test func heartbeatsUntilStoppedThenEndsTheSession() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: [:], clock: clock, script: [:])
        service.heartbeatSeconds = 30
        let session = TDFHLSMediaSession(service: service, assetID: UUID().uuidString.lowercased(), rendition: "video",
                                         clock: clock, progress: nil)
        _ = try await session.start()
        await eventually("clock.sleeperCount == 1") { clock.sleeperCount == 1 }
        #expect(clock.deadlines == [30])
        clock.advance(to: 30)
        await eventually("a heartbeat and the next wait") { service.count("heartbeat") == 1 && clock.deadlines == [60] }
        try session.validity.check()
        await session.stop()
        #expect(service.calls.map(\.kind) == ["start", "heartbeat", "end"])
        #expect(service.calls.first?.component == "video")
        #expect(service.openSessions == 0)
        #expect(throws: PlaybackError(.stopped, "")) { try session.validity.check() }
    }

    @Test func aHeartbeatAnswered404EndsThePlayback() async throws {
        let clock = ManualClock()
        let service = ScriptedKeyService(keys: [:], clock: clock, script: [:])
        service.heartbeatSeconds = 30
        service.heartbeatStatus = 404
        let session = TDFHLSMediaSession(service: service, assetID: UUID().uuidString.lowercased(), rendition: "video",
                                         clock: clock, progress: nil)
        _ = try await session.start()
        await eventually("clock.sleeperCount == 1") { clock.sleeperCount == 1 }
        clock.advance(to: 30)
        await eventually("service.openSessions == 0") { service.openSessions == 0 }
        #expect(throws: PlaybackError(.sessionEnded, "")) { try session.validity.check() }
    }
}
