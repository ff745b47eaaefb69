import MediaDRMMP4
import Testing
@testable import Packager

@Suite struct SegmentPlanTests {
    func track(_ kind: SourceTrack.Kind, timescale: UInt32, count: Int, duration: UInt32, sync: [Bool]? = nil,
               edit: EditTiming = EditTiming()) -> SourceTrack {
        SourceTrack(trackID: kind == .video ? 1 : 2, kind: kind, format: kind == .video ? "avc1" : "mp4a", timescale: timescale,
                    samples: SampleTable(offsets: Array(repeating: 0, count: count), sizes: Array(repeating: 1, count: count),
                                         durations: Array(repeating: duration, count: count), isSync: sync),
                    edit: edit)
    }

    @Test func moreThan4093SegmentsAreRefused() throws {
        let video = track(.video, timescale: 30, count: 4_094, duration: 30)
        #expect(throws: PackagerError(.limitExceeded, "")) {
            _ = try SegmentPlan(video: video, isIDR: nil, audio: nil, targetDuration: 1)
        }
        let fits = try SegmentPlan(video: track(.video, timescale: 30, count: 4_093, duration: 30), isIDR: nil, audio: nil, targetDuration: 1)
        #expect(fits.segments.count == 4_093)
    }

    @Test func cutsOnlyAtIDRFramesAfterTheTarget() throws {
        let sync = (0 ..< 100).map { $0 % 25 == 0 }
        let video = track(.video, timescale: 25, count: 100, duration: 1, sync: sync)
        let plan = try SegmentPlan(video: video, isIDR: nil, audio: nil, targetDuration: 1.5)
        #expect(plan.segments.map(\.video) == [0 ..< 50, 50 ..< 100])
        #expect(plan.durations == [2, 2])
        var notIDR = Array(repeating: true, count: 100)
        notIDR[50] = false
        let plan2 = try SegmentPlan(video: video, isIDR: notIDR, audio: nil, targetDuration: 1.5)
        #expect(plan2.segments.map(\.video) == [0 ..< 75, 75 ..< 100])
    }

    @Test func audioFollowsTheVideoRangesWithContiguousDecodeTimes() throws {
        let video = track(.video, timescale: 30, count: 300, duration: 1, sync: (0 ..< 300).map { $0 % 60 == 0 })
        // AAC at 48 kHz with one priming packet trimmed by the edit list.
        let audio = track(.audio, timescale: 48_000, count: 471, duration: 1024, edit: EditTiming(mediaStart: 1024))
        let plan = try SegmentPlan(video: video, isIDR: nil, audio: audio, targetDuration: 4)
        #expect(plan.segments.count == 3)
        var next: UInt64 = 0
        var covered = 0
        for segment in plan.segments {
            #expect(segment.audioDecodeTime == next)
            #expect(!segment.audio.isEmpty)
            #expect(segment.audio.lowerBound == covered)
            covered = segment.audio.upperBound
            next += UInt64(segment.audio.count) * 1024
        }
        // The last packet starts at 10.005 s, after the video's end at 10 s: no segment holds it.
        #expect(covered == 470)
    }

    @Test func lateSoundIsRefused() throws {
        let video = track(.video, timescale: 30, count: 90, duration: 1)
        let late = track(.audio, timescale: 48_000, count: 100, duration: 1024, edit: EditTiming(delay: 48_000))
        #expect(throws: PackagerError(.unsupportedInput, "")) {
            _ = try SegmentPlan(video: video, isIDR: nil, audio: late, targetDuration: 6)
        }
    }

    @Test func soundIsKeptOnlyWhenItCoversTheVideo() throws {
        let video = track(.video, timescale: 30, count: 90, duration: 1)
        let sound = track(.audio, timescale: 48_000, count: 150, duration: 1024)
        // Without an esds the track is not AAC: re-encoded, with the reason named.
        #expect(SourceSelection.decide(video: video, sounds: [sound]).2?.contains("not AAC-LC") == true)
        #expect(SourceSelection.decide(video: video, sounds: [sound, sound]).2 == "the input has 2 audio tracks, which are mixed")
        let edited = SourceTrack(trackID: 2, kind: .audio, format: "mp4a", timescale: 48_000, samples: sound.samples,
                                 unsupportedEdit: "audio track 2: an edit list with 2 media edits is not supported")
        #expect(SourceSelection.decide(video: video, sounds: [edited]).2?.contains("2 media edits") == true)
        #expect(SegmentPlan.audioCoverage(video: video, audio: sound) == .covers)
        let short = track(.audio, timescale: 48_000, count: 50, duration: 1024)
        #expect(SegmentPlan.audioCoverage(video: video, audio: short) == .stopsEarly)
        let late = track(.audio, timescale: 48_000, count: 150, duration: 1024, edit: EditTiming(delay: 48_000))
        #expect(SegmentPlan.audioCoverage(video: video, audio: late) == .startsLate)
        let elsewhere = track(.audio, timescale: 48_000, count: 100, duration: 1024, edit: EditTiming(delay: 480_000))
        #expect(SegmentPlan.audioCoverage(video: video, audio: elsewhere) == .noOverlap)
    }
}
