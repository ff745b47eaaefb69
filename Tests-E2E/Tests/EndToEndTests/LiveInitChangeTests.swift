import Foundation
import Testing

/// A live stream whose encoder restarted with other tracks (docs/live.md, "The player"): the
/// built `packager live` fed a 160x90 encoder that dies 6 s in, then a 320x180 one that dies as
/// well (no `EXT-X-ENDLIST`: the stream stays live), so segments 0–1 name `video-init.mp4` and
/// segments 2–3, after a discontinuity, `video-init-1.mp4`. The built `player play` writes a new
/// part at the change with `-o DIR/`, each a whole fMP4 of its own init, and refuses to mix two
/// inits in one output file.
@Suite struct LiveInitChangeTests {
    /// `clip` as an encoder writes it on a pipe, cut in the middle of its last fragment (the one
    /// at 6 s): an encoder that died. The packager publishes the segments whose end it saw (0–4 s).
    static func crashedEncoder(_ clip: String) throws -> Data {
        let stream = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-i", clip, "-c", "copy", "-f", "mp4",
                                            "-movflags", "frag_keyframe+empty_moov+default_base_moof", "pipe:1"])
        try stream.check("ffmpeg (fragmented MP4)")
        let last = try #require(stream.stdout.range(of: Data("moof".utf8), options: .backwards)).lowerBound
        return stream.stdout.prefix(last + (stream.stdout.count - last) / 2)
    }

    @Test func aNewInitMidStreamStartsANewOutputPart() async throws {
        let small = try Clips.liveEncoder("160x90", seconds: 6.5).path, large = try Clips.liveEncoder("320x180", seconds: 6.5).path
        let live = try LiveStreamWork("live-init")
        let kas = live.kas, token = live.token, directory = live.directory
        defer { kas.stop() }
        let packagerArguments = ["live", "--input", "-", "--profile", "tdf-hls", "-o", directory, "--kas-url", kas.address,
                                 "--kas-public-key", live.kasKeyPath, "--policy", live.policyPath,
                                 "--segment-duration", "2", "--key-period", "6", "--quiet"]
        for clip in [small, large] {
            let packaged = try run(try Tools.packager, packagerArguments, input: try Self.crashedEncoder(clip))
            #expect(packaged.status == 1 && packaged.stderr.contains("the live input is truncated"), "\(packaged.stderr)")
        }
        let playlist = try String(contentsOfFile: directory + "/video.m3u8", encoding: .utf8)
        #expect(!playlist.contains("#EXT-X-ENDLIST") && playlist.contains("video-init-1.mp4"), "\(playlist)")
        let origin = try StaticOrigin(root: live.work)
        defer { origin.stop() }
        let master = origin.url("live/master.m3u8")

        // Into a directory: part 0 holds segments 0-1 with the first init, part 1 segments 2-3 with the new one.
        let parts = Scratch.directory("live-init-parts")
        let played = try await PlayerRun.player(["play", master, "--kas", kas.address, "--token", token, "--from-start",
                                                 "--duration", "8", "-o", parts + "/", "--json"])
        #expect(played.status == 0, "\(played.stderr.suffix(800))")
        #expect(!played.stderr.contains(token))
        let events = played.stderr.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        let story = events.compactMap { event -> String? in
            switch event["event"] as? String {
            case "live-started": return "started \(event["sequence"] as? Int ?? -1)"
            case "live-segment": return "segment \(event["sequence"] as? Int ?? -1)"
            case "live-part": return "part \(event["part"] as? Int ?? -1) at \(event["sequence"] as? Int ?? -1)"
            case "live-ended": return "ended \(event["segments"] as? Int ?? -1)"
            case "finished": return "finished"
            default: return nil
            }
        }
        #expect(story == ["started 0", "segment 0", "segment 1", "part 1 at 2", "segment 2", "segment 3", "finished", "ended 4"], "\(story)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: parts)) == ["part-0.mp4", "part-1.mp4"])

        // Each part is a whole fMP4 of its encoder: its size, and the source's packets from its start.
        for (part, clip, size) in [(0, small, "160x90"), (1, large, "320x180")] {
            let file = parts + "/part-\(part).mp4"
            let probe = try run(Tools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                                "-of", "csv=p=0:s=x", file])
            try probe.check("ffprobe part \(part)")
            #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == size, "part \(part): \(probe.stdoutText)")
            let video = try LivePlaybackTests.packetHashes(file, map: "0:v")
            let sourceVideo = try LivePlaybackTests.packetHashes(clip, map: "0:v")
            #expect(video == Array(sourceVideo.prefix(100)), "part \(part): \(video.count) video packets, the source's first 4 s")
            let audio = try LivePlaybackTests.packetHashes(file, map: "0:a")
            let sourceAudio = try LivePlaybackTests.packetHashes(clip, map: "0:a")
            #expect(audio.count > 50 && LivePlaybackTests.isRun(audio, of: sourceAudio),
                    "part \(part): \(audio.count) audio packets are a run of the source's")
        }

        // Into one file: the playback ends at the change, naming it and the way out; no file.
        let single = Scratch.directory("live-init-single") + "/live.mp4"
        let refused = try await PlayerRun.player(["play", master, "--kas", kas.address, "--token", token, "--from-start",
                                                  "--duration", "8", "-o", single])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("video segment 2 starts a new init segment (video-init-1.mp4 after video-init.mp4)")
                && refused.stderr.contains("-o DIR/"), "\(refused.stderr.suffix(600))")
        #expect(!FileManager.default.fileExists(atPath: single))
        #expect(!refused.stderr.contains(token))
    }
}
