import Foundation
import MediaDRMJSON
import MediaDRMTDF
import Testing

/// `player play LIVE_URL` (docs/live.md, "The player") against the real parts: ffmpeg feeding a
/// 30 s clip in real time (`-re`) through `packager live` into a directory on the loopback origin,
/// the built `kas serve` holding the key ring, and the built `player` following the stream until
/// `EXT-X-ENDLIST`. Asserted: events and their order, never durations. The stream cannot end
/// before both players have joined, however slowly a loaded machine starts them: a gate in the
/// pipe holds the second half of the encoder's output until the key service has audited both
/// players' session starts.
@Suite struct LivePlaybackTests {
    /// 30 s (15 segments: a slow start on a loaded machine still joins a live stream), 160x90
    /// at 25 fps, an IDR frame every 2 s exactly (50 frames), 440 Hz AAC.
    static let segments = 15

    static func clip() throws -> String { try Clips.liveEncoder("160x90", seconds: 30).path }

    @Test func followsALiveStreamFromNearTheEdgeAcrossKeyPeriodsUntilItEnds() async throws {
        let clip = try Self.clip()
        let live = try LiveStreamWork("live")
        let kas = live.kas, token = live.token, work = live.work, directory = live.directory
        defer { kas.stop() }
        let origin = try StaticOrigin(root: work)
        defer { origin.stop() }

        // The encoder and the packager, as an operator pipes them (real time: -re); the DVR range
        // (60 s) keeps every segment listed, so the oldest listed is segment 0 whenever a viewer joins.
        // Between them the gate: `head -c` passes the fragments of the first 12 s (segments 0–5),
        // then nothing passes until the gate file exists.
        let gate = work + "/open-the-gate"
        let pipeline = Process()
        pipeline.executableURL = URL(fileURLWithPath: "/bin/sh")
        pipeline.arguments = ["-c", #""$0" -nostdin -loglevel error -re -i "$1" -c copy -f mp4 "#
            + #"-movflags frag_keyframe+empty_moov+default_base_moof pipe:1 | "#
            + #"{ head -c "$7"; while [ ! -e "$8" ]; do sleep 0.1; done; cat; } | "$2" live --input - --profile tdf-hls "#
            + #"-o "$3" --kas-url "$4" --kas-public-key "$5" --policy "$6" --segment-duration 2 --key-period 6 --dvr 60 --quiet"#,
            Tools.ffmpeg, clip, try Tools.packager, directory, kas.address, live.kasKeyPath, live.policyPath,
            String(try Self.fragmentOffset(clip, index: 6)), gate]
        let pipelineErrors = work + "/pipeline.log"
        _ = FileManager.default.createFile(atPath: pipelineErrors, contents: nil)
        pipeline.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: pipelineErrors))
        pipeline.standardOutput = FileHandle.nullDevice
        try pipeline.run()
        defer { if pipeline.isRunning { stopGracefully(pipeline) } }

        // Until the video playlist lists 4 segments, so that the player's start (three target
        // durations behind the edge) is not the first segment. The bound only limits a failure.
        let deadline = Date().addingTimeInterval(120)
        var listed = 0
        while listed < 4, Date() < deadline, pipeline.isRunning {
            let text = (try? String(contentsOfFile: directory + "/video.m3u8", encoding: .utf8)) ?? ""
            listed = text.split(separator: "\n").filter { $0.hasSuffix(".tdf") }.count
            if listed < 4 { usleep(100_000) }
        }
        #expect(listed >= 4, "the live playlist never listed 4 segments: \((try? String(contentsOfFile: pipelineErrors, encoding: .utf8)) ?? "")")
        let playlistAtStart = try String(contentsOfFile: directory + "/video.m3u8", encoding: .utf8)
        #expect(!playlistAtStart.contains("#EXT-X-ENDLIST"), "the player must start while the stream is live")

        // Two viewers at once: one from near the edge to the end, one from the oldest listed
        // segment for 8 s of media.
        async let edgeRun = PlayerRun.play(origin.url("live/master.m3u8"), kas: kas.address, token: token, json: true)
        async let startRun = PlayerRun.play(origin.url("live/master.m3u8"), kas: kas.address, token: token,
                                            ["--from-start", "--duration", "8"], json: true)
        // Both players start their session after reading a live playlist (the event order below):
        // two audited session starts mean both have joined, and the rest of the stream may flow.
        let joined = Date().addingTimeInterval(120)
        var sessions = 0
        while sessions < 2, Date() < joined {
            let audit = (try? String(contentsOfFile: kas.auditLog, encoding: .utf8)) ?? ""
            sessions = audit.split(separator: "\n").filter { $0.contains(#""event":"session_start""#) && $0.contains(#""reason":"started""#) }.count
            if sessions < 2 { usleep(100_000) }
        }
        #expect(sessions >= 2, "the players did not both start a session while the stream was held")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        let (played, fromStart) = try await (edgeRun, startRun)
        pipeline.waitUntilExit()
        #expect(pipeline.terminationStatus == 0, "\((try? String(contentsOfFile: pipelineErrors, encoding: .utf8)) ?? "")")
        #expect(played.output.status == 0,
                "\(played.stderr.suffix(800)) audit: \(((try? String(contentsOfFile: kas.auditLog, encoding: .utf8)) ?? "").suffix(1500))")
        #expect(played.result?["ok"] as? Bool == true)
        #expect(!played.stderr.contains(token))

        // The events, in order: started near the edge, every segment to the last once and in
        // order, then the end with the latency summary.
        let events = Self.events(played)
        let names = events.compactMap { $0["event"] as? String }
        let start = try #require(events.first { $0["event"] as? String == "live-started" }?["sequence"] as? Int,
                                 "no live start: the stream had ended before the player opened it? \(played.stderr.prefix(400))")
        #expect(start >= 1, "started at \(start): not the first segment, three target durations behind the edge")
        let segments = events.filter { $0["event"] as? String == "live-segment" }
        let sequences = segments.compactMap { $0["sequence"] as? Int }
        #expect(sequences == Array(start..<Self.segments), "played \(sequences)")
        #expect(segments.allSatisfy { $0["latencyMs"] is Int })
        let ended = try #require(events.first { $0["event"] as? String == "live-ended" })
        #expect(ended["segments"] as? Int == sequences.count)
        let median = try #require(ended["medianLatencyMs"] as? Int), maximum = try #require(ended["maxLatencyMs"] as? Int)
        #expect(median <= maximum)
        print("live playback: started at segment \(start), played \(sequences.count) segments, latency median \(median) ms, max \(maximum) ms")
        let order = ["live-started", "session-started", "first-clear-byte", "live-segment", "live-ended", "result"]
        let firsts = order.compactMap { name in names.firstIndex(of: name) }
        #expect(firsts.count == order.count && firsts == firsts.sorted(), "\(names)")

        // At least two key periods crossed (6 s periods of 2 s segments), read from the policies
        // of the played segments still on disk.
        var periods = Set<Int64>()
        for sequence in sequences {
            guard let data = FileManager.default.contents(atPath: directory + "/video-segment\(sequence).tdf") else { continue }
            let policy = try TDFPolicy(base64: try TDFArchiveReader(data: data).manifest.encryptionInformation.policy)
            if let period = policy.media?.object?["livePeriod"]?.int64 { periods.insert(period) }
        }
        #expect(periods.count >= 2, "key periods of the played segments on disk: \(periods.sorted())")
        print("live playback: key periods of the played segments on disk \(periods.sorted())")

        // The clear output's packets are the source's for the same segments: video packet for
        // packet from 2·start s (50 frames a segment), audio a contiguous run.
        let output = try Data(contentsOf: played.outputFile)
        defer { try? FileManager.default.removeItem(at: played.outputFile) }
        let sourceVideo = try Self.packetHashes(clip, map: "0:v")
        let outputVideo = try Self.packetHashes("pipe:0", data: output, map: "0:v")
        #expect(outputVideo == Array(sourceVideo[(start * 50)...]),
                "video packets of segments \(start)–\(Self.segments - 1) (\(outputVideo.count)) are the source's from \(start * 2) s")
        let sourceAudio = try Self.packetHashes(clip, map: "0:a")
        let outputAudio = try Self.packetHashes("pipe:0", data: output, map: "0:a")
        #expect(outputAudio.count > 100 && Self.isRun(outputAudio, of: sourceAudio), "\(outputAudio.count) audio packets are a run of the source's")

        // --from-start --duration 8: segments 0–3 (two key periods), the source's first 8 s of video.
        #expect(fromStart.output.status == 0, "\(fromStart.stderr.suffix(800))")
        let startEvents = Self.events(fromStart)
        #expect(startEvents.first { $0["event"] as? String == "live-started" }?["sequence"] as? Int == 0)
        #expect(startEvents.filter { $0["event"] as? String == "live-segment" }.compactMap { $0["sequence"] as? Int } == [0, 1, 2, 3])
        // At least 8 s of media (the EXTINFs, as the packager measured each segment), one segment short of 10.
        let startMedia = try #require(startEvents.first { $0["event"] as? String == "live-ended" }?["mediaMs"] as? Int)
        #expect((8000..<10_000).contains(startMedia))
        // One rewrap per segment for video and audio together, through the media session: fewer
        // media rewraps than component segments (libcurl may send one again on a kept-alive
        // connection the server closed, which the KAS audits too), every one delivering keys.
        let audit = (try? String(contentsOfFile: kas.auditLog, encoding: .utf8)) ?? ""
        let rewraps = audit.split(separator: "\n").filter { $0.contains(#""event":"media_rewrap""#) }
        let segmentsPlayed = sequences.count + 4
        #expect(rewraps.count >= segmentsPlayed && rewraps.count < 2 * segmentsPlayed, "\(rewraps.count) rewraps for \(segmentsPlayed) segments")
        #expect(rewraps.allSatisfy { $0.contains(#""reason":"keys_delivered""#) })
        print("live playback: \(rewraps.count) media rewraps for \(segmentsPlayed) segments of two components")
        let startOutput = try Data(contentsOf: fromStart.outputFile)
        defer { try? FileManager.default.removeItem(at: fromStart.outputFile) }
        #expect(try Self.packetHashes("pipe:0", data: startOutput, map: "0:v") == Array(sourceVideo[..<200]),
                "video packets of segments 0–3 are the source's first 8 s")
    }

    /// The byte offset of the `index`-th top-level `moof` of the clip as the pipeline's ffmpeg
    /// fragments it (one fragment per 2 s key frame interval), read from the same command run
    /// without `-re` into memory.
    static func fragmentOffset(_ clip: String, index: Int) throws -> Int {
        let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-i", clip, "-c", "copy", "-f", "mp4",
                                       "-movflags", "frag_keyframe+empty_moov+default_base_moof", "pipe:1"])
        try r.check("ffmpeg (fragmenting the live clip)")
        let bytes = [UInt8](r.stdout)
        var offset = 0, fragments = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset ..< offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self)
            if type == "moof" {
                if fragments == index { return offset }
                fragments += 1
            }
            guard size >= 8 else { break }
            offset += size
        }
        throw TestFailure("the fragmented clip has \(fragments) fragments, fewer than \(index + 1)")
    }

    /// The `--json` progress objects on stderr, in order.
    static func events(_ run: PlayerRun.Run) -> [[String: Any]] {
        run.stderr.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    /// Per-packet MD5s (ffmpeg `-c copy -f framemd5`, the sixth column; side data may follow).
    static func packetHashes(_ input: String, data: Data? = nil, map: String) throws -> [String] {
        let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-i", input, "-map", map, "-c", "copy", "-f", "framemd5", "-"],
                        input: data)
        try r.check("ffmpeg framemd5 of \(map)")
        return r.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    static func isRun(_ part: [String], of whole: [String]) -> Bool {
        guard !part.isEmpty, part.count <= whole.count else { return false }
        return (0 ... whole.count - part.count).contains { Array(whole[$0 ..< $0 + part.count]) == part }
    }
}
