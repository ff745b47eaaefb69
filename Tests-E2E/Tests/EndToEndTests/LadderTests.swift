import Foundation
import MediaDRMHLS
import MediaDRMTDF
import MediaDRMWebVTT
import Testing

/// A bitrate ladder in tdf-hls (issue 18): three pre-made renditions, two audio languages and
/// two subtitle languages packaged by the `packager` tool, served from the loopback origin and played by the `player`
/// tool against the in-process KAS; the master playlist checked against ffprobe, the `.tdf`
/// sizes, the PyPI m3u8 parser, our parser and Shaka Packager 3.8.0's master for the same
/// renditions.
@Suite(.serialized) struct LadderTests {
    struct Published {
        let title: LadderTitle.Title
        let directory: String
        let url: String
        let summary: [String: Any]
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var published: Published?

    /// Packaged once for the suite.
    static func publish() throws -> Published {
        lock.lock()
        defer { lock.unlock() }
        if let published { return published }
        let title = try LadderTitle.make()
        let (kas, origin) = try Stage.start()
        let name = "ladder-\(UUID().uuidString.prefix(8).lowercased())"
        let result = try packageLadder(title.rungs, audio: ["\(title.spanish):lang=es"], into: origin.root + "/\(name)/", kas: kas,
                                       segmentDuration: title.segmentDuration,
                                       extra: title.subtitles.flatMap { ["--subtitles", "\($0.1):lang=\($0.0)"] })
        guard result.status == 0, let summary = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw TestFailure("packager failed on the ladder (\(result.status)): \(result.stderr)")
        }
        let made = Published(title: title, directory: origin.root + "/\(name)", url: origin.url("\(name)/master.m3u8"), summary: summary)
        published = made
        return made
    }

    static func packageLadder(_ inputs: [String], audio: [String], into output: String, kas: KASFixture,
                              segmentDuration: Double, extra: [String] = []) throws -> ProcessResult {
        let work = Scratch.directory("ladder-publish")
        try Data(kas.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: work + "/kas.pem"))
        try Data(Publisher.policy().utf8).write(to: URL(fileURLWithPath: work + "/policy.json"))
        return try run(try Tools.packager, ["package"] + inputs + audio.flatMap { ["--audio", $0] } + [
            "-o", output, "--profile", "tdf-hls", "--kas-url", kas.publicURL, "--kas-public-key", work + "/kas.pem",
            "--policy", work + "/policy.json", "--segment-duration", String(segmentDuration), "--json", "--quiet",
        ] + extra)
    }

    /// The two independent parsers read the master; every CODECS, RESOLUTION, FRAME-RATE and
    /// CHANNELS matches ffprobe; BANDWIDTH and AVERAGE-BANDWIDTH are RFC 8216 §4.3.4.2's over
    /// the `.tdf` files on disk (the variant's own peak plus the largest audio peak).
    @Test func masterPlaylistMatchesTheMedia() throws {
        let p = try Self.publish()
        let masterBytes = try Data(contentsOf: URL(fileURLWithPath: p.directory + "/master.m3u8"))
        let ours = try HLSParser.parseMaster(masterBytes)
        try ours.checkRenditionGroups()
        let summary = try Venv.hlsSummary(p.directory + "/master.m3u8")
        let variants = try #require(summary["variants"] as? [[String: Any]])
        let all = try #require(summary["renditions"] as? [[String: Any]])
        let renditions = all.filter { $0["type"] as? String == "AUDIO" }
        let subtitles = all.filter { $0["type"] as? String == "SUBTITLES" }
        let media = try #require(summary["media"] as? [String: [String: Any]])
        #expect(variants.count == 3 && ours.variants.count == 3)
        #expect(subtitles.map { $0["language"] as? String } == ["en", "zh"])
        #expect(subtitles.allSatisfy { $0["groupId"] as? String == "subs" && $0["uri"] != nil })
        #expect(variants.allSatisfy { $0["subtitles"] as? String == "subs" })
        #expect(renditions.map { $0["language"] as? String } == ["en", "es"])
        #expect(renditions.map { $0["name"] as? String } == ["English", "Spanish"])
        #expect(renditions.map { $0["default"] as? String } == ["YES", nil])
        #expect(renditions.allSatisfy { $0["autoselect"] as? String == "YES" && $0["groupId"] as? String == "audio" })

        // Per rendition: its bit rates from the .tdf sizes and the EXTINF durations.
        func rate(_ uri: String) throws -> HLSBitRate {
            let segments = try #require(media[uri]?["segments"] as? [[String: Any]])
            let sizes = try segments.map { s in
                let name = try #require(s["uri"] as? String)
                #expect(name.hasSuffix(".tdf"))
                return try #require(try FileManager.default.attributesOfItem(atPath: p.directory + "/" + name)[.size] as? Int)
            }
            return HLSBitRate(sizes: sizes, durations: segments.compactMap { $0["duration"] as? Double })
        }
        let audioSources = [(p.title.rungs[0], 0), (p.title.spanish, 0)]
        var audioRates: [HLSBitRate] = []
        for (rendition, source) in zip(renditions, audioSources) {
            let uri = try #require(rendition["uri"] as? String)
            audioRates.append(try rate(uri))
            let probe = try #require(try FFprobe.streams(source.0).filter { $0["codec_type"] as? String == "audio" }.first)
            #expect(rendition["channels"] as? String == String(try #require(probe["channels"] as? Int)), "\(uri)")
            #expect(probe["profile"] as? String == "LC")
        }
        for (variant, rung) in zip(variants, p.title.rungs) {
            let uri = try #require(variant["uri"] as? String)
            let probe = try #require(try FFprobe.streams(rung).first { $0["codec_type"] as? String == "video" })
            let codecs = try #require(variant["codecs"] as? String).split(separator: ",").map(String.init)
            #expect(codecs.count == 2 && codecs.last == "mp4a.40.2", "\(uri)")
            let avc = try #require(codecs.first)
            #expect(avc.hasPrefix("avc1.") && avc.count == 11, "\(avc)")
            let hex = Array(avc.dropFirst(5))
            let profileName = try #require(probe["profile"] as? String)
            let profile = try #require(FFprobe.profileIDC[profileName])
            #expect(Int(String(hex[0 ..< 2]), radix: 16) == profile, "\(uri) \(avc) vs \(probe["profile"] ?? "")")
            #expect(Int(String(hex[4 ..< 6]), radix: 16) == probe["level"] as? Int, "\(uri) \(avc) vs level \(probe["level"] ?? "")")
            #expect(variant["resolution"] as? [Int] == [probe["width"] as? Int ?? 0, probe["height"] as? Int ?? 0], "\(uri)")
            let fraction = try #require(probe["r_frame_rate"] as? String).split(separator: "/").compactMap { Double($0) }
            #expect(abs((variant["frameRate"] as? Double ?? 0) - fraction[0] / fraction[1]) < 0.001, "\(uri)")
            let expected = HLSBitRate.variant(try rate(uri), groups: [audioRates])
            #expect(variant["bandwidth"] as? Int == expected.peak, "\(uri)")
            #expect(variant["averageBandwidth"] as? Int == expected.average, "\(uri)")
            #expect(variant["audio"] as? String == "audio")
            // The video alone cannot account for BANDWIDTH: the largest audio is in it.
            #expect((variant["bandwidth"] as? Int ?? 0) > (try rate(uri)).peak + audioRates.map(\.peak).min()!)
        }
        // Our parser agrees with m3u8 attribute for attribute.
        #expect(ours.variants.map(\.bandwidth) == variants.map { $0["bandwidth"] as? Int ?? -1 })
        #expect(ours.variants.map { $0.codecs?.joined(separator: ",") } == variants.map { $0["codecs"] as? String })
        #expect(ours.renditions.map(\.language) == all.map { $0["language"] as? String })
    }

    /// `player play` with each choice: every variant and each language played is, packet for
    /// packet, the track it was made from.
    /// With `--subtitles-out`, the chosen subtitle language's cues, repeats merged, are the
    /// source file's.
    @Test(arguments: [
        (["--variant", "1", "--audio-lang", "en", "--subtitles-lang", "zh"], 0, "en"),
        (["--max-height", "150", "--audio-lang", "es", "--subtitles-lang", "en"], 1, "es"),
        (["--max-height", "100"], 2, "en"),
    ])
    func eachRenditionPlaysLikeItsSource(_ choice: [String], _ rung: Int, _ language: String) throws {
        let p = try Self.publish()
        let (kas, _) = try Stage.start()
        let directory = Scratch.directory("ladder-play")
        let output = directory + "/clear.mp4", subtitlesOut = directory + "/subtitles.vtt"
        let subtitleLanguage = choice.firstIndex(of: "--subtitles-lang").map { choice[$0 + 1] }
        let result = try run(try Tools.player, ["play", p.url, "--kas", kas.publicURL, "--ca", kas.caFile,
                                                "--token", try kas.token("ladder-\(rung)-\(language)"), "--output", output] + choice
                                                + (subtitleLanguage == nil ? [] : ["--subtitles-out", subtitlesOut]))
        if let subtitleLanguage {
            let source = try #require(p.title.subtitles.first { $0.0 == subtitleLanguage })
            let written = try WebVTTFile(parsing: try Data(contentsOf: URL(fileURLWithPath: subtitlesOut)))
            #expect(written.cues == (try WebVTTFile(parsing: Array(source.2.utf8))).cues)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("components video-\(rung + 1), audio-\(language)"), "\(result.stderr)")
        let clear = try #require(FileManager.default.contents(atPath: output))
        #expect(try FFmpeg.streamHash(pipe: clear, map: "0:v") == (try FFmpeg.streamHash(p.title.rungs[rung], map: "0:v")))
        let audioSource = language == "en" ? p.title.rungs[0] : p.title.spanish
        #expect(try FFmpeg.streamHash(pipe: clear, map: "0:a") == (try FFmpeg.streamHash(audioSource, map: "0:a")))
    }

    @Test func aChoiceNoVariantMeetsIsRefused() throws {
        let p = try Self.publish()
        let (kas, _) = try Stage.start()
        let output = Scratch.directory("ladder-refused") + "/clear.mp4"
        let result = try run(try Tools.player, ["play", p.url, "--kas", kas.publicURL, "--ca", kas.caFile,
                                                "--token", try kas.token("ladder-none"), "--output", output, "--max-height", "80"])
        #expect(result.status == 1 && result.stderr.contains("no variant is within --max-height 80"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let language = try run(try Tools.player, ["play", p.url, "--kas", kas.publicURL, "--ca", kas.caFile,
                                                  "--token", try kas.token("ladder-none"), "--output", output, "--audio-lang", "fr"])
        #expect(language.status == 1 && language.stderr.contains("the stream has en, es"), "\(language.stderr)")
    }

    /// Aligned switching: the top variant's segments 0...k, then the middle variant's init and
    /// segments k+1..., decode in ffmpeg without an error and to every frame of the title.
    @Test func switchingVariantsAtASegmentBoundaryDecodes() throws {
        let p = try Self.publish()
        let (kas, _) = try Stage.start()
        let key = try kas.activeRSAPrivateKey()
        let segments = try #require((p.summary["segmentDurations"] as? [Double])?.count)
        #expect(segments == 3)
        let k = 1
        func clear(_ id: String, _ range: Range<Int>) throws -> Data {
            var data = try Data(contentsOf: URL(fileURLWithPath: p.directory + "/\(id)-init.mp4"))
            for n in range {
                data += try TDF.decrypt(try Data(contentsOf: URL(fileURLWithPath: p.directory + "/\(id)-segment\(n).tdf")), unwrapWith: key)
            }
            return data
        }
        // Each part as the decoder receives it: Annex B with the part's parameter sets in band,
        // so the decoder meets variant B's SPS at its first IDR as a player's decoder does.
        func annexB(_ fragmented: Data) throws -> Data {
            let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-i", "pipe:0", "-map", "0:v", "-c", "copy",
                                           "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"], input: fragmented)
            guard r.status == 0, !r.stdout.isEmpty else { throw TestFailure("ffmpeg could not extract H.264: \(r.stderr)") }
            return r.stdout
        }
        let switched = try annexB(try clear("video-1", 0 ..< k + 1)) + (try annexB(try clear("video-2", k + 1 ..< segments)))
        let decode = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-f", "h264", "-i", "pipe:0", "-f", "framemd5", "-"],
                             input: switched)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        let frames = FFmpeg.md5Column(decode.stdoutText).count
        #expect(frames == 14 * 24, "decoded \(frames) frames")
    }

    /// Shaka Packager 3.8.0 given the same renditions (clear HLS, 6 s segments) is the
    /// reference: the same variants (RESOLUTION, CODECS, FRAME-RATE, audio and subtitle groups),
    /// the same audio and subtitle languages and channels, and the same segment boundaries (video
    /// exactly, audio within one AAC frame: Shaka cuts the sound at its own frame boundary, we at
    /// the video's). Shaka writes each WebVTT file as one segment, so subtitle boundaries are not
    /// compared.
    @Test func shakaPackagerAgreesOnVariantsRenditionsAndBoundaries() throws {
        let p = try Self.publish()
        let shaka = Scratch.directory("ladder-shaka")
        var streams: [String] = []
        for (n, rung) in p.title.rungs.enumerated() {
            streams.append("in=\(rung),stream=video,output=\(shaka)/v\(n).mp4,playlist_name=v\(n).m3u8")
        }
        streams.append("in=\(p.title.rungs[0]),stream=audio,output=\(shaka)/en.mp4,playlist_name=en.m3u8,hls_group_id=audio,hls_name=English,language=en")
        streams.append("in=\(p.title.spanish),stream=audio,output=\(shaka)/es.mp4,playlist_name=es.m3u8,hls_group_id=audio,hls_name=Spanish,language=es")
        for (language, path, _) in p.title.subtitles {
            streams.append("in=\(path),stream=text,output=\(shaka)/\(language).vtt,playlist_name=sub-\(language).m3u8,hls_group_id=subs,language=\(language)")
        }
        let r = try run(try Venv.shakaPackager, streams + ["--segment_duration", "6", "--hls_master_playlist_output", shaka + "/master.m3u8"])
        #expect(r.status == 0, "\(r.stderr)")
        let reference = try Venv.hlsSummary(shaka + "/master.m3u8")
        let ours = try Venv.hlsSummary(p.directory + "/master.m3u8")
        let rv = try #require(reference["variants"] as? [[String: Any]]), ov = try #require(ours["variants"] as? [[String: Any]])
        #expect(rv.count == ov.count)
        for (r, o) in zip(rv, ov) {
            #expect(r["resolution"] as? [Int] == o["resolution"] as? [Int])
            #expect((r["codecs"] as? String)?.lowercased() == (o["codecs"] as? String)?.lowercased())
            #expect(r["frameRate"] as? Double == o["frameRate"] as? Double)
            #expect(r["audio"] as? String == o["audio"] as? String)
            #expect(r["subtitles"] as? String == o["subtitles"] as? String)
        }
        let rr = try #require(reference["renditions"] as? [[String: Any]]), or = try #require(ours["renditions"] as? [[String: Any]])
        #expect(rr.map { $0["type"] as? String } == or.map { $0["type"] as? String })
        #expect(rr.map { $0["language"] as? String } == or.map { $0["language"] as? String })
        #expect(rr.map { $0["channels"] as? String } == or.map { $0["channels"] as? String })
        let rm = try #require(reference["media"] as? [String: [String: Any]]), om = try #require(ours["media"] as? [String: [String: Any]])
        func durations(_ media: [String: [String: Any]], _ uri: String?) -> [Double] {
            ((uri.flatMap { media[$0] }?["segments"] as? [[String: Any]]) ?? []).compactMap { $0["duration"] as? Double }
        }
        for (r, o) in zip(rv, ov) {
            let a = durations(rm, r["uri"] as? String), b = durations(om, o["uri"] as? String)
            #expect(!a.isEmpty && a == b, "video boundaries: Shaka \(a), ours \(b)")
        }
        let aacFrame = 1024.0 / 48000
        let audio = { (list: [[String: Any]]) in list.filter { $0["type"] as? String == "AUDIO" } }
        for (r, o) in zip(audio(rr), audio(or)) {
            let a = durations(rm, r["uri"] as? String), b = durations(om, o["uri"] as? String)
            #expect(a.count == b.count && !a.isEmpty, "audio segments: Shaka \(a), ours \(b)")
            var (ea, eb) = (0.0, 0.0)
            for (x, y) in zip(a, b) {
                ea += x
                eb += y
                #expect(abs(ea - eb) <= aacFrame, "audio boundary: Shaka \(ea), ours \(eb)")
            }
        }
    }

    /// A rendition whose IDRs fall elsewhere is refused with the first time they disagree, and
    /// nothing is written.
    @Test func misalignedRenditionsAreRefusedWithTheFirstMismatch() throws {
        let title = try LadderTitle.make()
        let (kas, _) = try Stage.start()
        let output = Scratch.directory("ladder-misaligned") + "/out/"
        let r = try Self.packageLadder([title.rungs[0], title.misaligned], audio: [], into: output, kas: kas,
                                       segmentDuration: title.segmentDuration)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("IDR frames do not line up: first mismatch at 6.000 s"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
