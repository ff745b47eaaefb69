// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import Testing
@testable import Packager

/// §8.2 #13: sound that is not one AAC-LC track covering the video is mixed and re-encoded once
/// as AAC-LC with ffmpeg, padded with silence where short. The video is still compared bit for
/// bit with the source (in `packageAndVerify`); the audio is checked by decoding it.
@Suite struct AudioReencodingTests {
    static let video = ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25"]

    /// Packages `source`, checks the re-encoding reason, and returns the decrypted audio facts.
    func reencoded(_ source: String, reason: String, channels: Int) throws -> (stream: Data, key: String, duration: Double) {
        let (package, summary) = try FPSv2PackagerTests().packageAndVerifyWithSummary(source, expectAudio: true, compareAudio: false)
        let why = try #require(summary.audioReencodeReason)
        #expect(why.contains(reason), "\(why)")
        #expect(summary.warnings.contains { $0.contains("re-encoded") })
        let master = String(decoding: try #require(package.entries["master.m3u8"]), as: UTF8.self)
        #expect(master.contains("CHANNELS=\"\(channels == 6 ? 6 : channels)\""))
        let stream = try package.stream("audio")
        let key = try #require(package.keys["audio"]).map { String(format: "%02x", $0) }.joined()
        let facts = try FFmpeg.audioFacts(stream, keyHex: key)
        #expect(facts.channels == channels)
        // The audio covers the video, within one AAC packet at the end.
        #expect(facts.seconds >= summary.duration - 0.03 && facts.seconds <= summary.duration + 0.05,
                "audio \(facts.seconds) s for video \(summary.duration) s")
        return (stream, key, summary.duration)
    }

    static func silences(_ report: String) -> [(start: Double, end: Double?)] {
        var list: [(Double, Double?)] = []
        for line in report.split(separator: "\n") {
            if let r = line.range(of: "silence_start: ") {
                list.append((Double(line[r.upperBound...].prefix { $0 != " " }) ?? -1, nil))
            } else if let r = line.range(of: "silence_end: "), !list.isEmpty {
                list[list.count - 1].1 = Double(line[r.upperBound...].prefix { $0 != " " })
            }
        }
        return list
    }

    @Test func mp3IsReencoded() throws {
        let source = try TestMedia.make("mp3.mp4", Self.video + ["-f", "lavfi", "-i", "sine=frequency=440", "-t", "3",
                                                               "-c:v", "libx264", "-g", "25", "-c:a", "libmp3lame"])
        _ = try reencoded(source, reason: "MP3", channels: 1)
    }

    @Test func twoTracksAreMixed() throws {
        // One tone for the first two seconds, the other for the last two: only the mix sounds throughout.
        let source = try TestMedia.make("two-tracks.mp4", Self.video + ["-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                                                                      "-itsoffset", "2", "-f", "lavfi", "-i", "sine=frequency=1000:duration=2",
                                                                      "-map", "0:v", "-map", "1:a", "-map", "2:a", "-t", "4",
                                                                      "-c:v", "libx264", "-g", "25", "-c:a", "aac"])
        let audio = try reencoded(source, reason: "2 audio tracks", channels: 1)
        let silences = Self.silences(try FFmpeg.audioFilterReport(audio.stream, keyHex: audio.key, filter: "silencedetect=n=-50dB:d=0.2"))
        #expect(silences.isEmpty, "the mix has sound from both tracks throughout: \(silences)")
    }

    @Test func lateAndShortSoundIsPaddedWithSilence() throws {
        let source = try TestMedia.make("late.mp4", Self.video + ["-itsoffset", "1", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                                                                "-t", "4", "-c:v", "libx264", "-g", "25", "-c:a", "aac"])
        let movie = try SourceMovie(path: source)
        let track = try #require(movie.tracks.first { $0.kind == .audio })
        #expect(SegmentPlan.audioCoverage(video: try #require(movie.tracks.first { $0.kind == .video }), audio: track) == .startsLate)
        let audio = try reencoded(source, reason: "starts after the video", channels: 1)
        let silences = Self.silences(try FFmpeg.audioFilterReport(audio.stream, keyHex: audio.key, filter: "silencedetect=n=-50dB:d=0.3"))
        // Silence from 0 to 1 s (the late start), sound to 3 s, silence to the video's end.
        #expect(silences.count == 2, "\(silences)")
        if silences.count == 2 {
            #expect(abs(silences[0].start) < 0.03 && abs((silences[0].end ?? 0) - 1) < 0.05, "\(silences)")
            #expect(abs(silences[1].start - 3) < 0.05, "\(silences)")
        }
    }

    @Test func channelConfigurationZeroIsReencoded() throws {
        // ffmpeg writes a 5.1(side) layout with a program config element: channelConfiguration 0.
        let source = try TestMedia.make("pce.mp4", Self.video + ["-f", "lavfi", "-i", "sine=frequency=300", "-t", "2",
                                                               "-c:v", "libx264", "-g", "25", "-af", "aformat=channel_layouts=5.1(side)",
                                                               "-c:a", "aac"])
        let movie = try SourceMovie(path: source)
        let config = try #require(try movie.tracks.first { $0.kind == .audio }?.audioSpecificConfig())
        #expect(config.channelConfiguration == 0)
        _ = try reencoded(source, reason: "channel configuration 0", channels: 6)
    }

    @Test func missingFFmpegIsNamed() throws {
        let source = try TestMedia.make("mp3.mp4", Self.video + ["-f", "lavfi", "-i", "sine=frequency=440", "-t", "3",
                                                               "-c:v", "libx264", "-g", "25", "-c:a", "libmp3lame"])
        var options = try KASFixture.options()
        options.ffmpegPath = "/nonexistent/ffmpeg"
        let dir = TestMedia.temporaryDirectory("noffmpeg")
        #expect {
            _ = try FPSv2Packager.package(input: source, output: dir + "/out.tdf", options: options)
        } throws: { error in
            guard let error = error as? PackagerError else { return false }
            return error.code == .externalTool && error.reason.contains("needs ffmpeg") && error.reason.contains("not found")
                && error.reason.contains("MP3")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        let cli = try PackagerBinary.package(source, output: dir + "/out.tdf", extra: ["--ffmpeg", "/nonexistent/ffmpeg"])
        #expect(cli.status == 1 && cli.stderr.contains("ffmpeg was not found"), "\(cli.stderr)")
    }

    @Test func theTemporaryAudioIsPrivateAndRemoved() throws {
        let source = try TestMedia.make("late.mp4", Self.video + ["-itsoffset", "1", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                                                                "-t", "4", "-c:v", "libx264", "-g", "25", "-c:a", "aac"])
        let prepared = try PreparedSource(input: source, segmentDuration: 6, ffmpegPath: nil) { _ in }
        let scratch = try #require(prepared.scratchPath)
        let attributes = try FileManager.default.attributesOfItem(atPath: scratch)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch) == ["audio.m4a"])
        #expect(prepared.audioConfig?.audioObjectType == 2)
        prepared.removeScratch()
        #expect(!FileManager.default.fileExists(atPath: scratch))
    }
}
