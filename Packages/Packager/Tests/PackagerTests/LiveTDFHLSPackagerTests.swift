import Foundation
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMTDF
import Testing
@testable import Packager

/// `packager live` fed as an encoder feeds it: ffmpeg writing fragmented MP4 on a pipe, as fast
/// as it can (no `-re`: the packager must not depend on timing), 2 s segments of a clip with
/// 2 s GOPs.
@Suite struct LiveTDFHLSPackagerTests {
    /// 20 s, 160x90 at 30 fps, an IDR frame every 2 s exactly, 440 Hz AAC.
    static func clip() throws -> String {
        try TestMedia.make("live-20s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-f", "lavfi", "-i", "sine=frequency=440",
                                            "-t", "20", "-c:v", "libx264", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-c:a", "aac"])
    }

    static let fragmented = ["-c", "copy", "-f", "mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof", "pipe:1"]

    /// ffmpeg's fragmented MP4 of `source` (after `inputOptions`) piped into `packager live`.
    static func live(_ source: String, inputOptions: [String] = [], output: String, extra: [String]) throws -> ProcessResult {
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: FFmpeg.debian)
        ffmpeg.arguments = ["-nostdin", "-loglevel", "error"] + inputOptions + ["-i", source] + fragmented
        let pipe = Pipe()
        ffmpeg.standardOutput = pipe
        ffmpeg.standardError = FileHandle.nullDevice
        try ffmpeg.run()
        defer { ffmpeg.waitUntilExit() }
        // Only ffmpeg may hold the write end, or the packager would never see the end of its input.
        try pipe.fileHandleForWriting.close()
        let result = try run(PackagerBinary.path, try arguments(output: output, extra: extra), inputFile: nil, stdin: pipe)
        try? pipe.fileHandleForReading.close()
        return result
    }

    static func arguments(input: String = "-", output: String, extra: [String]) throws -> [String] {
        let policy = TestMedia.temporaryDirectory("live-policy") + "/policy.json"
        try Data(KASFixture.policy.utf8).write(to: URL(fileURLWithPath: policy))
        return ["live", "--input", input, "--profile", "tdf-hls", "-o", output, "--kas-url", "https://kas.example.com",
                "--kas-public-key", try KASFixture.publicKeyPath, "--policy", policy, "--segment-duration", "2", "--quiet"] + extra
    }

    /// Per-packet MD5s of one stream's data (ffmpeg `-c copy -f framemd5`, its sixth column: side
    /// data hashes may follow it, and the source's first AAC packet carries the edit list's
    /// skip-samples, which a package without an edit list does not).
    static func packetHashes(_ input: String, data: Data? = nil, map: String) throws -> [String] {
        let r = try run(FFmpeg.debian, ["-nostdin", "-loglevel", "error", "-i", input, "-map", map, "-c", "copy", "-f", "framemd5", "-"], input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg framemd5 failed: \(r.stderr)") }
        return r.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    /// Whether `part` is `whole[k ..< k + part.count]` for some k.
    static func isRun(_ part: [String], of whole: [String]) -> Bool {
        guard !part.isEmpty, part.count <= whole.count else { return false }
        return (0 ... whole.count - part.count).contains { Array(whole[$0 ..< $0 + part.count]) == part }
    }

    struct Opened {
        var clear: Data
        var policies: [Int: JSONObject]
    }

    /// Init + the decrypted segments `sequences` of component `id`, and each segment's arkavo:media.
    static func open(_ dir: String, _ id: String, _ sequences: [Int], initName: String? = nil) throws -> Opened {
        let key = try KASPrivateKey(pemRepresentation: try String(contentsOfFile: KASFixture.privateKeyPath, encoding: .utf8))
        var clear = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + (initName ?? "\(id)-init.mp4")))
        var policies: [Int: JSONObject] = [:]
        for n in sequences {
            let archive = try Data(contentsOf: URL(fileURLWithPath: dir + "/\(id)-segment\(n).tdf"))
            clear += try TDF.decrypt(archive, unwrapWith: key)
            let policy = try TDFPolicy(base64: try TDFArchiveReader(data: archive).manifest.encryptionInformation.policy)
            policies[n] = try #require(policy.media?.object)
        }
        return Opened(clear: clear, policies: policies)
    }

    static func playlists(_ dir: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in ["master.m3u8", "video.m3u8", "audio.m3u8"] { result[name] = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)) }
        return result
    }

    @Test func slidingWindowKeyPeriodsAndDecryptedPackets() throws {
        let source = try Self.clip()
        let dir = TestMedia.temporaryDirectory("live") + "/stream"
        let result = try Self.live(source, output: dir, extra: ["--window", "3", "--key-period", "6", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(report["firstSequence"] as? Int == 0 && report["nextSequence"] as? Int == 10)
        #expect(report["periods"] as? [Int] == [0, 1, 2, 3])

        // 10 segments of 2 s: the playlists list the last 3, one playlist's worth more stays on
        // disk, the first 4 are deleted.
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        for id in ["video", "audio"] {
            #expect((0 ..< 4).allSatisfy { !names.contains("\(id)-segment\($0).tdf") }, "\(id): old segments deleted")
            #expect((4 ..< 10).allSatisfy { names.contains("\(id)-segment\($0).tdf") })
        }
        #expect(!names.contains { $0.hasPrefix(".") }, "no temporary left behind")

        let playlists = try Self.playlists(dir)
        let parsed = try IndependentTools.m3u8(playlists)
        #expect(parsed["master.m3u8"]?["variants"] as? [String] == ["video.m3u8"])
        #expect(parsed["master.m3u8"]?["sessionData"] as? [[String]] == [["net.arkavo.profile", "tdf-hls"]])
        for id in ["video", "audio"] {
            #expect(parsed["\(id).m3u8"]?["segments"] as? [String] == (7 ..< 10).map { "\(id)-segment\($0).tdf" })
            #expect(parsed["\(id).m3u8"]?["endlist"] as? Bool == true)
            #expect(parsed["\(id).m3u8"]?["durations"] as? [Double] == [2, 2, 2])
            let media = try HLSParser.parseMedia(try #require(playlists["\(id).m3u8"]), mode: .lenient)
            #expect(media.mediaSequence == 7 && media.playlistType == nil && media.endList)
            #expect(media.segments.allSatisfy { $0.programDateTime != nil })
            #expect(media.segments.first?.map?.uri == "\(id)-init.mp4")
        }

        // Every segment on disk decrypts; its packets are the source's over the same time, and
        // its policy carries its key period (6 s = 3 segments) and that period's length.
        for (id, map) in [("video", "0:v"), ("audio", "0:a")] {
            let opened = try Self.open(dir, id, Array(4 ..< 10))
            let packets = try Self.packetHashes("pipe:0", data: opened.clear, map: "0")
            let all = try Self.packetHashes(source, map: map)
            if id == "video" {
                // Segments 4 to 9 start at 8 s: frame 240 of 600 (30 fps), an IDR frame.
                let same = packets == Array(all[240...])
                #expect(same, "video packets of segments 4 to 9 are the source's from 8 s (\(packets.count) of \(all.count))")
            } else {
                #expect(Self.isRun(packets, of: all), "audio packets are a run of the source's")
                #expect(packets.count > 400)
            }
            for n in 4 ..< 10 {
                #expect(opened.policies[n]?["livePeriod"]?.int64 == Int64(n / 3), "\(id) segment \(n)")
                #expect(opened.policies[n]?["livePeriodSeconds"]?.int64 == 6, "\(id) segment \(n)")
            }
            let starts = Set((4 ..< 10).compactMap { opened.policies[$0]?["livePeriodStart"]?.int64 })
            #expect(starts.count == 3 && starts.sorted().adjacentPairs().allSatisfy { $1 - $0 == 6 })
        }
    }

    /// ffmpeg's fragmented MP4 of the first `seconds` of `source`, cut in the middle of its last
    /// fragment: what a packager reads from an encoder that died mid-write.
    static func crashedEncoderStream(_ source: String, seconds: String, into path: String) throws {
        let stream = try run(FFmpeg.debian, ["-nostdin", "-loglevel", "error", "-t", seconds, "-i", source] + Self.fragmented).stdout
        let lastFragment = try #require(stream.range(of: Data("moof".utf8), options: .backwards)).lowerBound
        try stream.prefix(lastFragment + (stream.count - lastFragment) / 2).write(to: URL(fileURLWithPath: path))
    }

    @Test func restartContinuesTheMediaSequence() throws {
        let source = try Self.clip()
        let work = TestMedia.temporaryDirectory("live-restart")
        let dir = work + "/stream"
        let extra = ["--window", "3", "--key-period", "6", "--dvr", "3600", "--json"]
        // The first encoder dies 12 s in, inside its 12 s fragment: the segments whose end it
        // saw (0-4, to 10 s) are published, the stream is not ended.
        try Self.crashedEncoderStream(source, seconds: "13", into: work + "/crashed.mp4")
        let first = try run(PackagerBinary.path, try Self.arguments(input: work + "/crashed.mp4", output: dir, extra: extra))
        #expect(first.status == 1 && first.stderr.contains("the live input is truncated"), "\(first.stderr)")
        let cut = try HLSParser.parseMedia(try Data(contentsOf: URL(fileURLWithPath: dir + "/video.m3u8")), mode: .lenient)
        #expect(!cut.endList && cut.segments.map(\.uri) == (0 ..< 5).map { "video-segment\($0).tdf" })
        let crashed = try #require(try LiveState.load(from: dir))
        #expect(!crashed.ended && crashed.nextSequence == 5)
        // The encoder restarted from 10 s.
        let second = try Self.live(source, inputOptions: ["-ss", "10"], output: dir, extra: extra)
        #expect(second.status == 0, "\(second.stderr)")
        let b = try #require(try JSONSerialization.jsonObject(with: second.stdout) as? [String: Any])
        #expect(b["resumed"] as? Bool == true && b["firstSequence"] as? Int == 5 && b["nextSequence"] as? Int == 10)
        #expect(b["policyUUID"] as? String == crashed.policyUUID)
        // The periods go on from the stream's clock: the second run continues where the first
        // ended (10 s), so its segments start at 10 to 18 s, periods 1 to 3.
        #expect(b["periods"] as? [Int] == [1, 2, 3])
        // Every period's start is the stream's clock plus p key periods, period 0's too (it is
        // the stream's start, never the policy check's placeholder).
        let opened = try Self.open(dir, "video", Array(0 ..< 10))
        var periodStarts: [Int64: Int64] = [:]
        for n in 0 ..< 10 {
            if let period = opened.policies[n]?["livePeriod"]?.int64 { periodStarts[period] = opened.policies[n]?["livePeriodStart"]?.int64 }
        }
        let start0 = try #require(periodStarts[0])
        #expect(start0 > 1_700_000_000 && periodStarts == [0: start0, 1: start0 + 6, 2: start0 + 12, 3: start0 + 18], "\(periodStarts)")

        let playlists = try Self.playlists(dir)
        let parsed = try IndependentTools.m3u8(playlists)
        let media = try HLSParser.parseMedia(try #require(playlists["video.m3u8"]), mode: .lenient)
        #expect(media.mediaSequence == 0 && media.endList)
        #expect(media.segments.map(\.uri) == (0 ..< 10).map { "video-segment\($0).tdf" })
        #expect(media.segments.map(\.discontinuity) == (0 ..< 10).map { $0 == 5 })
        #expect(parsed["audio.m3u8"]?["segments"] as? [String] == (0 ..< 10).map { "audio-segment\($0).tdf" })

        // Each run's packets are the source's: the first half from 0, the second from 10 s
        // (frame 300, an IDR frame) to the end.
        let all = try Self.packetHashes(source, map: "0:v")
        let run1 = try Self.packetHashes("pipe:0", data: try Self.open(dir, "video", Array(0 ..< 5)).clear, map: "0")
        let run2 = try Self.packetHashes("pipe:0", data: try Self.open(dir, "video", Array(5 ..< 10)).clear, map: "0")
        let prefix = run1 == Array(all.prefix(run1.count)), suffix = run2 == Array(all[300...])
        #expect(prefix && run1.count == 300, "the first run's video is the source's first 10 s (\(run1.count) packets)")
        #expect(suffix, "the second run's video is the source's from 10 s (\(run2.count) packets)")
        let audio = try Self.packetHashes(source, map: "0:a")
        for range in [0 ..< 5, 5 ..< 10] {
            let packets = try Self.packetHashes("pipe:0", data: try Self.open(dir, "audio", Array(range)).clear, map: "0")
            let differ = Array(zip(packets, audio)).firstIndex { $0 != $1 }
            #expect(Self.isRun(packets, of: audio), "\(range): \(packets.count) audio packets are a run of the source's \(audio.count) (first difference from the start at \(differ ?? -1))")
        }
    }

    /// RFC 8216 §6.2.1: a playlist with EXT-X-ENDLIST never changes. A restart on a stream whose
    /// input ended is refused, naming the directory and what to do, and writes nothing.
    @Test func anEndedStreamIsNeverReopened() throws {
        let source = try Self.clip()
        let dir = TestMedia.temporaryDirectory("live-ended") + "/stream"
        let extra = ["--window", "3", "--key-period", "6"]
        let first = try Self.live(source, inputOptions: ["-t", "6"], output: dir, extra: extra)
        #expect(first.status == 0, "\(first.stderr)")
        func snapshot() throws -> [String: (Data, Int)] {
            var files: [String: (Data, Int)] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
                let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/" + name)
                let inode = try #require(attributes[.systemFileNumber] as? Int)
                files[name] = (try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)), inode)
            }
            return files
        }
        let before = try snapshot()
        #expect(before["live-state.json"] != nil && before["video.m3u8"] != nil)
        let ended = try HLSParser.parseMedia(try #require(before["video.m3u8"]?.0), mode: .lenient)
        #expect(ended.endList)

        let again = try Self.live(source, inputOptions: ["-ss", "6"], output: dir, extra: extra)
        #expect(again.status == 1)
        #expect(again.stderr.contains("the stream in \(dir) ended") && again.stderr.contains("EXT-X-ENDLIST")
                && again.stderr.contains("new output directory"), "\(again.stderr)")
        // Nothing written: the same files, the same bytes, not even rewritten (same inodes).
        let after = try snapshot()
        #expect(Set(after.keys) == Set(before.keys))
        for (name, (bytes, inode)) in before {
            #expect(after[name]?.0 == bytes && after[name]?.1 == inode, "\(name) changed")
        }
    }

    @Test func truncatedAndMalformedInputFailWithAClearError() throws {
        let source = try Self.clip()
        let dir = TestMedia.temporaryDirectory("live-bad")
        let stream = try run(FFmpeg.debian, ["-nostdin", "-loglevel", "error", "-t", "7", "-i", source] + Self.fragmented).stdout
        // Cut inside the third fragment's mdat.
        let cut = dir + "/cut.mp4"
        try stream.prefix(stream.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let truncated = try run(PackagerBinary.path, try Self.arguments(input: cut, output: dir + "/t", extra: []))
        #expect(truncated.status == 1 && truncated.stderr.contains("the live input is truncated"), "\(truncated.stderr)")
        // The segments written before the cut are listed, and every listed one exists; no ENDLIST.
        let media = try HLSParser.parseMedia(try Data(contentsOf: URL(fileURLWithPath: dir + "/t/video.m3u8")), mode: .lenient)
        #expect(!media.endList && !media.segments.isEmpty)
        #expect(media.segments.allSatisfy { FileManager.default.fileExists(atPath: dir + "/t/" + $0.uri) })

        // A progressive MP4 is not what an encoder writes on a pipe.
        let progressive = try run(PackagerBinary.path, try Self.arguments(input: source, output: dir + "/p", extra: []))
        #expect(progressive.status == 1 && progressive.stderr.contains("comes before the 'moov'"), "\(progressive.stderr)")
        // Garbage.
        let junk = dir + "/junk.bin"
        try Data(repeating: 0x41, count: 64).write(to: URL(fileURLWithPath: junk))
        let garbage = try run(PackagerBinary.path, try Self.arguments(input: junk, output: dir + "/g", extra: []))
        #expect(garbage.status == 1 && garbage.stderr.contains("not fragmented MP4"), "\(garbage.stderr)")
        // A directory holding another package is refused.
        try FileManager.default.createDirectory(atPath: dir + "/vod", withIntermediateDirectories: true)
        try Data("#EXTM3U".utf8).write(to: URL(fileURLWithPath: dir + "/vod/master.m3u8"))
        let occupied = try run(PackagerBinary.path, try Self.arguments(input: cut, output: dir + "/vod", extra: []))
        #expect(occupied.status == 1 && occupied.stderr.contains("no live-state.json"), "\(occupied.stderr)")
    }
}

extension Sequence {
    func adjacentPairs() -> [(Element, Element)] { Array(zip(self, self.dropFirst())) }
}
