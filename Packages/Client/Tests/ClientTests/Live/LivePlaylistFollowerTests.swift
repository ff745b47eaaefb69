import Foundation
import Testing
@testable import Client

/// `LivePlaylistFollower` against a simulated live packager (`SimulatedLiveStream`) on a clock
/// that moves only when the follower sleeps: the start position, the RFC 8216 §6.3.4 reload
/// schedule, media-sequence following, a segment that slid out, discontinuities, the end list,
/// `--duration` and a stalled stream.
@Suite struct LivePlaylistFollowerTests {
    static let components = [(name: "video.m3u8", component: "video"), (name: "audio.m3u8", component: "audio")]

    func follower(_ stream: SimulatedLiveStream, _ options: LivePlayOptions, videoOnly: Bool = false) -> LivePlaylistFollower {
        LivePlaylistFollower(loader: stream, playlists: videoOnly ? [Self.components[0]] : Self.components, options: options)
    }

    /// Pulls every segment of each component in turn, as the muxer does, until both end.
    func playAll(_ follower: LivePlaylistFollower, components: Int = 2) throws -> [[Int]] {
        var played = Array(repeating: [Int](), count: components)
        var next = Array(repeating: 0, count: components)
        var ended = Array(repeating: false, count: components)
        while ended.contains(false) {
            for c in 0..<components where !ended[c] {
                if let segment = try follower.segment(component: c, index: next[c]) {
                    played[c].append(segment.sequence)
                    next[c] += 1
                } else {
                    ended[c] = true
                }
            }
        }
        return played
    }

    @Test func startsThreeTargetDurationsBehindTheEdge() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)  // segments 0–9 published, 4–9 listed
        let stream = SimulatedLiveStream(clock: clock)
        let start = try follower(stream, LivePlayOptions(clock: clock)).start()
        // 7, 8 and 9 hold the last 6 s = three target durations (RFC 8216 §6.3.3).
        #expect(start == 7)
    }

    @Test func fromStartBeginsAtTheOldestListedSegment() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)
        let stream = SimulatedLiveStream(clock: clock)
        #expect(try follower(stream, LivePlayOptions(fromStart: true, clock: clock)).start() == 4)
    }

    @Test func followsTheMediaSequenceOfEveryComponentUntilTheEndList() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)
        let stream = SimulatedLiveStream(clock: clock)
        let follower = follower(stream, LivePlayOptions(clock: clock))
        let start = try follower.start()
        let played = try playAll(follower)
        // Every segment from the start to the last, once, in order, for both components.
        #expect(played[0] == Array(start..<15))
        #expect(played[1] == Array(start..<15))
        #expect(stream.served.all.last?.text.contains("#EXT-X-ENDLIST") == true)
        // A load never comes sooner than half a target duration after the previous one.
        for component in 0..<2 {
            let loads = follower.loads.filter { $0.component == component }.map(\.at)
            #expect(zip(loads.dropFirst(), loads).allSatisfy { $0 - $1 >= 1.0 })
        }
    }

    @Test func reloadsTheTargetDurationAfterAChangeAndHalfOfItWhenUnchanged() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 25.5)
        // The packager publishes a 2-s segment every 2.5 s, so some reloads find nothing new.
        let stream = SimulatedLiveStream(clock: clock, publishEvery: 2.5)
        let follower = follower(stream, LivePlayOptions(clock: clock), videoOnly: true)
        let start = try follower.start()
        #expect(try playAll(follower, components: 1)[0] == Array(start..<15))
        // RFC 8216 §6.3.4: the next load comes the target duration (2 s) after a load that
        // changed the playlist (or the first), half of it after one that did not.
        let loads = follower.loads.map(\.at)
        let texts = stream.served.all.map(\.text)
        #expect(loads.count == texts.count)
        var gaps: [Double] = []
        for i in 1..<loads.count {
            let changed = i == 1 || texts[i - 1] != texts[i - 2]
            #expect(loads[i] - loads[i - 1] == (changed ? 2.0 : 1.0), "load \(i)")
            gaps.append(loads[i] - loads[i - 1])
        }
        #expect(gaps.contains(1.0))
        #expect(gaps.contains(2.0))
    }

    @Test func aSegmentThatSlidOutEndsThePlaybackNamingIt() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)
        let stream = SimulatedLiveStream(clock: clock, total: 40)
        let follower = follower(stream, LivePlayOptions(clock: clock), videoOnly: true)
        let start = try follower.start()
        #expect(try follower.segment(component: 0, index: 0)?.sequence == start)
        #expect(try follower.segment(component: 0, index: 1)?.sequence == start + 1)
        #expect(try follower.segment(component: 0, index: 2)?.sequence == start + 2)
        // The player stalls for 30 s: the window (6 segments) moves past start + 3.
        clock.advance(by: 30)
        let error = #expect(throws: PlaybackError.self) { try follower.segment(component: 0, index: 3) }
        #expect(error?.code == .io)
        #expect(error?.reason.contains("video segment \(start + 3) left the live playlist") == true)
    }

    @Test func aDiscontinuityWithTheSameInitPlaysThrough() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)
        let stream = SimulatedLiveStream(clock: clock, discontinuityAt: 11)
        let follower = follower(stream, LivePlayOptions(clock: clock))
        let start = try follower.start()
        let played = try playAll(follower)
        #expect(played[0] == Array(start..<15))
        #expect(stream.served.all.contains { $0.text.contains("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME") })
    }

    /// A discontinuity with a new init is followed like any other; each segment says which init
    /// it needs (the output starts a new part there, `LiveTDFSegments`).
    @Test func aDiscontinuityWithANewInitHandsOnEachSegmentsInit() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)
        let stream = SimulatedLiveStream(clock: clock, newInitAt: 11)
        let follower = follower(stream, LivePlayOptions(clock: clock), videoOnly: true)
        let start = try follower.start()
        var maps: [Int: String?] = [:]
        for index in 0..<(15 - start) {
            let segment = try #require(try follower.segment(component: 0, index: index))
            #expect(segment.sequence == start + index)
            maps[segment.sequence] = segment.mapURI
        }
        #expect(try follower.segment(component: 0, index: 15 - start) == nil)
        #expect((start..<11).allSatisfy { maps[$0] == "video-init.mp4" } && (11..<15).allSatisfy { maps[$0] == "video-init-1.mp4" },
                "\(maps)")
    }

    @Test func durationStopsAfterThatMuchMediaOnEveryComponent() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)
        let stream = SimulatedLiveStream(clock: clock, total: 1000)
        let follower = follower(stream, LivePlayOptions(duration: 5, clock: clock))
        let start = try follower.start()
        let played = try playAll(follower)
        // 2-s segments: after three, 6 s ≥ 5 s were written.
        #expect(played[0] == [start, start + 1, start + 2])
        #expect(played[1] == played[0])
    }

    @Test func aStalledStreamEndsAfterTheBoundOfUnchangedReloads() throws {
        let clock = SteppedLiveClock()
        clock.advance(by: 20.5)
        let stream = SimulatedLiveStream(clock: clock, total: 100, stallAfter: 12)
        let follower = follower(stream, LivePlayOptions(clock: clock), videoOnly: true)
        let start = try follower.start()
        var played: [Int] = []
        let error = #expect(throws: PlaybackError.self) {
            while let segment = try follower.segment(component: 0, index: played.count) { played.append(segment.sequence) }
        }
        #expect(played == Array(start..<12))
        #expect(error?.reason.contains("did not change in 8 reloads") == true)
        // The last 8 loads found it unchanged: the first a target duration after the last change,
        // each next one half a target duration after the one before.
        let loads = follower.loads.map(\.at).suffix(9)
        #expect(zip(loads.dropFirst(), loads).map { $0 - $1 } == [2.0] + Array(repeating: 1.0, count: 7))
    }

    /// A playlist served as given, whatever the time.
    struct FixedPlaylist: ResourceLoader {
        let text: String
        func load(_ name: String, maxBytes: Int) throws(PlaybackError) -> Data { Data(text.utf8) }
    }

    @Test(arguments: ["9223372036854775807", "9007199254740993", "-1"])
    func aHostileMediaSequenceIsRefusedByName(_ sequence: String) {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n#EXT-X-MAP:URI=\"video-init.mp4\"\n"
            + "#EXTINF:2.0,\nvideo-segment1.tdf\n#EXTINF:2.0,\nvideo-segment2.tdf\n"
        let follower = LivePlaylistFollower(loader: FixedPlaylist(text: text), playlists: [Self.components[0]],
                                            options: LivePlayOptions(clock: SteppedLiveClock()))
        let error = #expect(throws: PlaybackError.self) { try follower.start() }
        #expect(error?.code == .invalidSource)
        #expect(error?.reason.contains("video live playlist") == true)
    }

    @Test func programDateTimeIsReadWithAndWithoutFractions() {
        #expect(LiveSegment.programDate("2027-01-15T08:00:00.250Z") == LiveSegment.programDate("2027-01-15T08:00:00Z").map { $0 + 0.25 })
        #expect(LiveSegment.programDate("2027-01-15T08:00:00+01:00") == LiveSegment.programDate("2027-01-15T07:00:00Z"))
        #expect(LiveSegment.programDate("yesterday") == nil)
    }

    @Test func latencySummaryIsTheMedianAndMaximum() {
        var latency = LiveLatency()
        #expect(latency.median == nil)
        for sample in [3.0, 1.0, 2.0, 10.0] { latency.record(sample) }
        #expect(latency.median == 2.5)
        #expect(latency.maximum == 10)
    }
}
