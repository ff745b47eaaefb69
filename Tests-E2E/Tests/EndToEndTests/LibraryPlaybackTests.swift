import Client
import Foundation
import Testing

/// The Client library's `PlaybackSession` against the in-process KAS over TLS and the loopback
/// origin: each clip in both profiles plays back like the source.
@Suite struct LibraryPlaybackTests {
    static let cases: [(String, Publisher.Profile)] = [
        ("av", .fpsV2), ("silent", .fpsV2), ("bframes", .fpsV2),
        ("av", .tdfHLS), ("silent", .tdfHLS), ("bframes", .tdfHLS),
    ]

    @Test(arguments: cases)
    func playsBackLikeTheSource(_ name: String, _ profile: Publisher.Profile) async throws {
        let clip = try #require(try Clips.all().first { $0.name == name })
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, profile)
        let outcome = try await ClientPlayer.play(url, kas: kas, token: try kas.token("library-\(name)-\(profile)"))
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        let problems = try SourceMatch.check(outcome.media, against: clip)
        #expect(problems.isEmpty, "\(problems)")
        let components = clip.hasAudio ? ["video", "audio"] : ["video"]
        var delivered: [String] = []
        var firstByte = 0, segmentKeys = 0
        for event in outcome.events {
            if case .keyDelivered(let component, _) = event { delivered.append(component) }
            if case .segmentKeysDelivered(let count, _) = event { segmentKeys += count }
            if case .firstClearByte = event { firstByte += 1 }
        }
        if profile == .fpsV2 {
            #expect(Set(delivered) == Set(components), "\(outcome.events)")
        } else {
            // One Standard TDF per segment and component, each key from an OpenTDF rewrap.
            #expect(segmentKeys >= components.count * 2, "\(outcome.events)")
        }
        #expect(firstByte == 1)
    }

    @Test func deniedViewerGetsNoByte() async throws {
        let clip = try Clips.av()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2)
        let outcome = try await ClientPlayer.play(url, kas: kas, token: try kas.token("library-denied", entitlements: []))
        #expect(outcome.error?.code == .denied)
        #expect(outcome.error?.status == 403)
        #expect(outcome.media.isEmpty)
    }

    @Test func concurrencyLimitIsReported() async throws {
        let clip = try Clips.silent()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2, mediaFlags: ["--max-streams", "1"])
        let token = try kas.token("library-one-stream")
        let holder = try ReferencePlayer.play(url, viewer: Viewer(kas: kas, token: token), holdSessions: true)
        #expect(holder.statuses.allSatisfy { $0 == 200 })
        let refused = try await ClientPlayer.play(url, kas: kas, token: token)
        #expect(refused.error?.code == .concurrencyLimit)
        #expect(refused.media.isEmpty)
        for id in holder.sessionIDs { _ = try Viewer(kas: kas, token: token).endSession(id) }
        let played = try await ClientPlayer.play(url, kas: kas, token: token)
        #expect(played.error == nil)
        #expect(try SourceMatch.check(played.media, against: clip).isEmpty)
    }
}
