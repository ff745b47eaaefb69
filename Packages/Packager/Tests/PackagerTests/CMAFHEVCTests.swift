import Foundation
import MediaDRMHLS
import Testing
@testable import Packager

/// HEVC in the cmaf profile against independent tools: ffmpeg 8.1 decrypts every rendition to
/// the source's packets, Debian's ffprobe reads the codec without a key, and Shaka Packager 3.8.0,
/// given the same input and keys, cuts the same segments (decode times and samples), writes the same codec strings and
/// bandwidths within 1 %, and leaves clear exactly the bytes we leave clear: its `senc`
/// subsample entries (from its own slice segment header parser) equal ours sample for sample.
@Suite struct CMAFHEVCTests {
    /// libx265 Main, 25 fps, an IRAP picture every 2 s with B-frames and x265's open GOPs (CRA
    /// pictures after the first IDR). `hev1` repeats the parameter sets in band before every IRAP.
    static func hevcSource(_ name: String, size: String, entry: String = "hvc1", sound: Bool) throws -> String {
        let inBand = entry == "hev1" ? ":repeat-headers=1" : ""
        var arguments = ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25"]
        if sound { arguments += ["-f", "lavfi", "-i", "sine=frequency=440", "-metadata:s:a:0", "language=eng"] }
        arguments += ["-t", "13", "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                      "-x265-params", "keyint=50:min-keyint=50:scenecut=0:bframes=3:log-level=error" + inBand, "-tag:v", entry]
        if sound { arguments += ["-c:a", "aac"] }
        return try TestMedia.make(name, arguments)
    }

    /// Runs Shaka Packager 3.8.0 over `streams` (input, stream, label, extra descriptor fields),
    /// each into `<out>/<n>/`, with cbcs under `keys` (Shaka's `--keys` list).
    static func shaka(_ streams: [(input: String, stream: String, label: String, extra: String)], keys: String, out: String) throws {
        var arguments = streams.enumerated().map { n, s in
            "in=\(s.input),stream=\(s.stream),init_segment=\(out)/\(n)/init.mp4,segment_template=\(out)/\(n)/$Number$.m4s,"
                + "playlist_name=\(n).m3u8,drm_label=\(s.label)\(s.extra)"
        }
        arguments += ["--protection_scheme", "cbcs", "--enable_raw_key_encryption", "--keys", keys, "--protection_systems", "CommonSystem",
                      "--clear_lead", "0", "--segment_duration", "6", "--generate_static_live_mpd",
                      "--hls_master_playlist_output", "\(out)/master.m3u8", "--mpd_output", "\(out)/manifest.mpd"]
        let packaged = try run(try IndependentTools.shakaPackager(), arguments)
        try #require(packaged.status == 0, "Shaka Packager: \(packaged.stderr)")
    }

    /// Each media segment's first decode time (`tfdt`) and `senc` entries, read by
    /// `cmaf_summary.py senc`, segment by segment.
    static func segments(_ directory: String) throws -> [(decodeTime: Int, samples: [[[Int]]])] {
        var files: [String] = []
        while FileManager.default.fileExists(atPath: directory + "/\(files.count + 1).m4s") { files.append(directory + "/\(files.count + 1).m4s") }
        let summary = try #require(try CMAFPackagerTests.cmafSummary(["senc"] + files) as? [String: [String: Any]])
        return try files.map { file in
            let segment = try #require(summary[file])
            return (try #require(segment["decodeTime"] as? Int), try #require(segment["samples"] as? [[[Int]]]))
        }
    }

    /// One rendition against Shaka's: the same segment boundaries (each segment's first decode
    /// time and sample count) and each sample's subsamples the same (clear and protected byte
    /// counts). Shaka's EXTINF and `S@d` count from each segment's first presented picture, so
    /// with B-frames its first and last durations differ from ours by the reordering delay; the
    /// decode times are what both cut at.
    static func expectSameSegments(ours: String, theirs: String, _ id: String) throws {
        let (a, b) = (try segments(ours), try segments(theirs))
        #expect(a.count == b.count && a.count > 1, "\(id): \(a.count) segments, Shaka's \(b.count)")
        #expect(a.map(\.decodeTime) == b.map(\.decodeTime), "\(id): segment decode times")
        var samples = 0
        for (n, (x, y)) in zip(a, b).enumerated() {
            #expect(x.samples.count == y.samples.count, "\(id) segment \(n + 1): \(x.samples.count) samples, Shaka's \(y.samples.count)")
            for (i, (p, q)) in zip(x.samples, y.samples).enumerated() where p != q {
                Issue.record("\(id) segment \(n + 1) sample \(i + 1): subsamples \(p), Shaka's \(q)")
            }
            samples += x.samples.count
            #expect(x.samples.allSatisfy { !$0.isEmpty }, "\(id) segment \(n + 1): every video sample has a subsample map")
        }
        #expect(samples >= 13 * 25)
    }

    @Test func hevcDecryptsAndMatchesShakaPackager() throws {
        let source = try Self.hevcSource("cmaf-hevc.mp4", size: "320x180", sound: true)
        let out = TestMedia.temporaryDirectory("cmaf-hevc") + "/package/"
        let summary = try CMAFPackager.package(inputs: [source], output: out, options: try KASFixture.options())
        #expect(summary.segmentDurations == [6, 6, 1])
        let package = try CMAFPackagerTests.OpenedCMAF(out)

        // ffmpeg 8.1 decrypts each rendition, with the key unwrapped from the manifest, to the source's packets.
        let ffmpeg8 = try IndependentTools.ffmpeg8()
        for (id, map) in [("video", "0:v"), ("audio", "0:a")] {
            let key = try #require(package.keys[id])
            #expect(try FFmpeg.streamHash(decrypting: try package.track(id), keyHex: key, ffmpeg: ffmpeg8)
                    == (try FFmpeg.streamHash(source, map: map)), "\(id)")
        }
        // The init: encv whose frma keeps hvc1, cbcs 1:9 under the video key.
        let inits = try #require(try CMAFPackagerTests.cmafSummary(["init", out + "video/init.mp4"]) as? [String: [String: Any]])
        let box = try #require(inits[out + "video/init.mp4"])
        #expect(box["schm"] as? String == "cbcs" && box["frma"] as? String == "hvc1")
        let tenc = try #require(box["tenc"] as? [String: Any])
        #expect(tenc["kid"] as? String == package.keyIDs["video"] && tenc["crypt"] as? Int == 1 && tenc["skip"] as? Int == 9)
        // Debian's ffprobe reads the rendition without a key: HEVC, 320x180.
        let trackFile = TestMedia.temporaryDirectory("cmaf-hevc-probe") + "/video.mp4"
        try package.track("video").write(to: URL(fileURLWithPath: trackFile))
        let probe = try run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "json", trackFile])
        let streams = try #require((try JSONSerialization.jsonObject(with: probe.stdout) as? [String: Any])?["streams"] as? [[String: Any]])
        #expect(streams.first?["codec_name"] as? String == "hevc" && streams.first?["width"] as? Int == 320)

        // Shaka Packager 3.8.0 on the same input with the same keys.
        let shaka = TestMedia.temporaryDirectory("shaka-cmaf-hevc")
        try Self.shaka([(source, "video", "VIDEO", ""), (source, "audio", "AUDIO", ",hls_group_id=audio")],
                       keys: ["video", "audio"].map { "label=\($0.uppercased()):key_id=\(package.keyIDs[$0] ?? ""):key=\(package.keys[$0] ?? "")" }
                           .joined(separator: ","), out: shaka)
        try Self.expectSameSegments(ours: out + "video", theirs: shaka + "/0", "video")
        let theirMaster = try HLSParser.parseMaster(try Data(contentsOf: URL(fileURLWithPath: shaka + "/master.m3u8")))
        let ourMaster = try HLSParser.parseMaster(try package.data("master.m3u8"))
        try #require(theirMaster.variants.count == 1 && ourMaster.variants.count == 1)
        let (a, b) = (ourMaster.variants[0], theirMaster.variants[0])
        #expect(a.codecs?.map { $0.lowercased() } == b.codecs?.map { $0.lowercased() })
        #expect(a.codecs?.first?.hasPrefix("hvc1.") == true)
        #expect(a.resolution == b.resolution)
        #expect(abs(Double(a.bandwidth) / Double(b.bandwidth) - 1) < 0.01, "BANDWIDTH \(a.bandwidth) vs Shaka's \(b.bandwidth)")
        let ourMPD = try #require(try CMAFPackagerTests.cmafSummary(["mpd", out + "manifest.mpd"]) as? [String: Any])
        let theirMPD = try #require(try CMAFPackagerTests.cmafSummary(["mpd", shaka + "/manifest.mpd"]) as? [String: Any])
        let o = try #require(((ourMPD["sets"] as? [[String: Any]])?.first?["representations"] as? [[String: Any]])?.first)
        let t = try #require(((theirMPD["sets"] as? [[String: Any]])?.first?["representations"] as? [[String: Any]])?.first)
        #expect((o["codecs"] as? String)?.lowercased() == (t["codecs"] as? String)?.lowercased())
        #expect((o["durations"] as? [Int])?.reduce(0, +) == (t["durations"] as? [Int])?.reduce(0, +), "the same total duration")
        let (ob, tb) = (try #require(o["bandwidth"] as? Int), try #require(t["bandwidth"] as? Int))
        #expect(abs(Double(ob) / Double(tb) - 1) < 0.01, "MPD bandwidth \(ob) vs Shaka's \(tb)")
    }

    /// Two HEVC renditions cut at the same times, the lower one `hev1` with its parameter sets in
    /// band: each decrypts with the video key, and each matches Shaka Packager's rendition of
    /// the same input (codecs, BANDWIDTH within 1 %, `senc` entries).
    @Test func hevcLadderWithInBandParameterSets() throws {
        let top = try Self.hevcSource("cmaf-hevc-top.mp4", size: "320x180", sound: true)
        let low = try Self.hevcSource("cmaf-hevc-low-hev1.mp4", size: "160x90", entry: "hev1", sound: false)
        let out = TestMedia.temporaryDirectory("cmaf-hevc-ladder") + "/package/"
        _ = try CMAFPackager.package(inputs: [top, low], output: out, options: try KASFixture.options())
        let package = try CMAFPackagerTests.OpenedCMAF(out)
        #expect(package.keyIDs.keys.sorted() == ["audio", "video-1", "video-2"])
        let ffmpeg8 = try IndependentTools.ffmpeg8()
        let key = try #require(package.keys["video"])
        for (id, input) in [("video-1", top), ("video-2", low)] {
            #expect(try FFmpeg.streamHash(decrypting: try package.track(id), keyHex: key, ffmpeg: ffmpeg8)
                    == (try FFmpeg.streamHash(input, map: "0:v")), "\(id)")
        }
        let inits = try #require(try CMAFPackagerTests.cmafSummary(["init", out + "video-2/init.mp4"]) as? [String: [String: Any]])
        #expect(inits[out + "video-2/init.mp4"]?["frma"] as? String == "hev1")

        let shaka = TestMedia.temporaryDirectory("shaka-cmaf-hevc-ladder")
        try Self.shaka([(top, "video", "VIDEO", ""), (low, "video", "VIDEO", ""), (top, "audio", "AUDIO", ",language=en,hls_group_id=audio")],
                       keys: "label=VIDEO:key_id=\(package.keyIDs["video-1"] ?? ""):key=\(key),"
                           + "label=AUDIO:key_id=\(package.keyIDs["audio"] ?? ""):key=\(package.keys["audio"] ?? "")", out: shaka)
        try Self.expectSameSegments(ours: out + "video-1", theirs: shaka + "/0", "video-1")
        try Self.expectSameSegments(ours: out + "video-2", theirs: shaka + "/1", "video-2")
        let theirs = try HLSParser.parseMaster(try Data(contentsOf: URL(fileURLWithPath: shaka + "/master.m3u8")))
        let ours = try HLSParser.parseMaster(try package.data("master.m3u8"))
        let theirVariants = theirs.variants.sorted { $0.bandwidth > $1.bandwidth }
        try #require(theirVariants.count == ours.variants.count && ours.variants.count == 2)
        for (a, b) in zip(ours.variants, theirVariants) {
            #expect(a.resolution == b.resolution)
            // Shaka's HLS names an `hev1` rendition `hvc1` (its MPD and init keep `hev1`); ours
            // names the sample entry, as RFC 6381 and ISO/IEC 14496-15 Annex E read.
            let entry = a.uri == "video-2.m3u8" ? "hev1" : "hvc1"
            #expect(a.codecs?.first?.hasPrefix(entry + ".") == true)
            #expect(a.codecs?.map { $0.lowercased() } == b.codecs?.map { $0.lowercased().replacingOccurrences(of: "hvc1.", with: entry + ".") })
            #expect(abs(Double(a.bandwidth) / Double(b.bandwidth) - 1) < 0.01, "\(a.uri): BANDWIDTH \(a.bandwidth) vs Shaka's \(b.bandwidth)")
        }
        let ourMPD = try #require(try CMAFPackagerTests.cmafSummary(["mpd", out + "manifest.mpd"]) as? [String: Any])
        let theirMPD = try #require(try CMAFPackagerTests.cmafSummary(["mpd", shaka + "/manifest.mpd"]) as? [String: Any])
        func videoCodecs(_ mpd: [String: Any]) -> [String] {
            ((mpd["sets"] as? [[String: Any]]) ?? []).filter { $0["contentType"] as? String == "video" }
                .flatMap { ($0["representations"] as? [[String: Any]]) ?? [] }.compactMap { ($0["codecs"] as? String)?.lowercased() }.sorted()
        }
        #expect(videoCodecs(ourMPD) == videoCodecs(theirMPD) && videoCodecs(ourMPD).count == 2)
    }
}
