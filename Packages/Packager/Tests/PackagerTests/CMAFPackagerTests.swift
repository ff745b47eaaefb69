import Foundation
import MediaDRMEncoding
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMTDF
import Testing
@testable import Packager

/// The cmaf profile against independent tools: ffmpeg 8.1 decrypts every rendition with the key
/// unwrapped from `manifest.json` by the KAS private key, a Python parse of the init boxes, PyPI
/// `m3u8` and `mpegdash`, and Shaka Packager 3.8.0 given the same input and keys.
@Suite struct CMAFPackagerTests {
    /// A cmaf package read back: its files (recursively) and each component's key.
    struct OpenedCMAF {
        var root: String
        var names: [String]
        var manifest: JSONObject
        var meta: JSONObject
        /// Component (video, audio) → key hex; rendition → key ID hex.
        var keys: [String: String]
        var keyIDs: [String: String]

        init(_ root: String) throws {
            self.root = root
            let enumerator = try #require(FileManager.default.enumerator(atPath: root))
            names = (enumerator.allObjects as? [String] ?? []).filter { name in
                var isDirectory: ObjCBool = false
                FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory)
                return !isDirectory.boolValue
            }.sorted()
            manifest = try #require(try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: root + "/manifest.json")))).object)
            meta = try #require(manifest["meta"]?.object)
            let info = try #require(manifest["encryptionInformation"]?.object)
            let policyBase64 = try #require(info["policy"]?.string)
            let policy = try #require(try JSONParser.parse(Array(try Base64.decode(policyBase64))).object)
            let components = try #require(policy["arkavo:components"]?.array)
            let access = try #require(info["keyAccess"]?.array)
            try #require(access.count == components.count)
            let privateKey = try KASPrivateKey(pemRepresentation: try String(contentsOfFile: KASFixture.privateKeyPath, encoding: .utf8))
            keys = [:]
            for (component, object) in zip(components, access) {
                let id = try #require(component.object?["id"]?.string)
                let keyAccess = try KeyAccessObject(json: object)
                let key = try keyAccess.unwrap(with: privateKey)
                #expect(keyAccess.isPolicyBindingValid(policyBase64: policyBase64, key: key), "\(id) binding")
                keys[id] = key.withUnsafeBytes { Hex.encode(Data($0)) }
            }
            keyIDs = [:]
            for entry in try #require(meta["keys"]?.array) {
                let object = try #require(entry.object)
                let kid = try #require(object["kid"]?.string).replacingOccurrences(of: "-", with: "")
                for rendition in try #require(object["renditions"]?.array) { keyIDs[try #require(rendition.string)] = kid }
            }
        }

        func data(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: root + "/" + name)) }

        /// Init + every segment of a rendition, as a player appends them.
        func track(_ id: String) throws -> Data {
            var data = try self.data("\(id)/init.mp4")
            var n = 1
            while FileManager.default.fileExists(atPath: root + "/\(id)/\(n).m4s") {
                data += try self.data("\(id)/\(n).m4s")
                n += 1
            }
            return data
        }
    }

    static func cmafSummary(_ arguments: [String]) throws -> Any {
        let script = IndependentTools.repositoryRoot.appendingPathComponent("Tools/python/cmaf_summary.py").path
        let r = try run(try IndependentTools.python(), [script] + arguments)
        guard r.status == 0 else { throw TestFailure("cmaf_summary.py failed: \(r.stderr)") }
        return try JSONSerialization.jsonObject(with: r.stdout)
    }

    @Test func standardClipDecryptsAndMatchesShakaPackager() throws {
        let source = try TestMedia.standard()
        let out = TestMedia.temporaryDirectory("cmaf") + "/package/"
        let summary = try CMAFPackager.package(inputs: [source], output: out, options: try KASFixture.options())
        #expect(summary.profile == "cmaf" && summary.isDirectory)
        #expect(summary.segmentDurations == [6, 6, 1])
        let package = try OpenedCMAF(out)
        var expected = ["manifest.json", "manifest.mpd", "master.m3u8"]
        for id in ["video", "audio"] { expected += ["\(id).m3u8", "\(id)/init.mp4", "\(id)/1.m4s", "\(id)/2.m4s", "\(id)/3.m4s"] }
        #expect(package.names == expected.sorted())
        #expect(Set(summary.entries) == Set(expected))
        #expect(package.meta["profile"]?.string == "cmaf")

        // Keys are nowhere in the clear: not in any file of the package.
        for name in package.names {
            let bytes = try package.data(name)
            for key in package.keys.values {
                #expect(!bytes.contains(try Hex.decode(key)) && !String(decoding: bytes, as: UTF8.self).lowercased().contains(key), "\(name)")
            }
        }

        // ffmpeg 8.1 decrypts each rendition, with the key unwrapped from the manifest, to the source's packets.
        let ffmpeg8 = try IndependentTools.ffmpeg8()
        for (id, map) in [("video", "0:v"), ("audio", "0:a")] {
            let key = try #require(package.keys[id])
            #expect(try FFmpeg.streamHash(decrypting: try package.track(id), keyHex: key, ffmpeg: ffmpeg8)
                    == (try FFmpeg.streamHash(source, map: map)), "\(id)")
        }

        // The init boxes, read by an independent parse: cbcs, the rendition's KID, the common pssh with every KID.
        let inits = try #require(try Self.cmafSummary(["init", out + "video/init.mp4", out + "audio/init.mp4"]) as? [String: [String: Any]])
        let allKIDs = Set(package.keyIDs.values)
        for (id, pattern) in [("video", (1, 9)), ("audio", (0, 0))] {
            let box = try #require(inits[out + "\(id)/init.mp4"])
            #expect(box["schm"] as? String == "cbcs" && box["frma"] as? String == (id == "video" ? "avc1" : "mp4a"))
            let tenc = try #require(box["tenc"] as? [String: Any])
            #expect(tenc["kid"] as? String == package.keyIDs[id])
            #expect(tenc["crypt"] as? Int == pattern.0 && tenc["skip"] as? Int == pattern.1 && tenc["perSampleIVSize"] as? Int == 0)
            #expect(try Base64.decode(try #require(package.manifest["encryptionInformation"]?.object?["method"]?.object?["iv"]?.string))
                    == (try Hex.decode(try #require(tenc["constantIV"] as? String))))
            let pssh = try #require(box["pssh"] as? [[String: Any]])
            #expect(pssh.count == 1)
            #expect(pssh.first?["systemID"] as? String == "1077efecc0b24d02ace33c1e52e2fb4b" && pssh.first?["version"] as? Int == 1)
            #expect(Set(pssh.first?["kids"] as? [String] ?? []) == allKIDs && pssh.first?["dataSize"] as? Int == 0)
        }

        // HLS: PyPI m3u8 reads every playlist; the keys are FairPlay's skd:// and ClearKey's data: URI of the KID.
        var playlists: [String: Data] = [:]
        for name in ["master.m3u8", "video.m3u8", "audio.m3u8"] { playlists[name] = try package.data(name) }
        let read = try IndependentTools.m3u8(playlists)
        #expect(read["master.m3u8"]?["variants"] as? [String] == ["video.m3u8"])
        for id in ["video", "audio"] {
            let media = try #require(read["\(id).m3u8"])
            #expect(media["segments"] as? [String] == ["\(id)/1.m4s", "\(id)/2.m4s", "\(id)/3.m4s"])
            #expect(media["maps"] as? [String] == ["\(id)/init.mp4"])
            let ours = try HLSParser.parseMedia(try package.data("\(id).m3u8"))
            let keys = ours.segments.first?.keys ?? []
            #expect(keys.map(\.keyFormat) == ["com.apple.streamingkeydelivery", "org.w3.clearkey"])
            #expect(keys.first?.uri == "skd://\(summary.policyUUID)/\(id)")
            let kid = try Hex.decode(try #require(package.keyIDs[id]))
            #expect(keys.last?.uri == "data:text/plain;base64,\(Base64.encode(kid))")
            #expect(!String(decoding: try package.data("\(id).m3u8"), as: UTF8.self).contains("identity"))
        }

        // DASH: PyPI mpegdash reads the MPD.
        let mpd = try #require(try Self.cmafSummary(["mpd", out + "manifest.mpd"]) as? [String: Any])
        #expect(mpd["type"] as? String == "static")
        let sets = try #require(mpd["sets"] as? [[String: Any]])
        #expect(sets.map { $0["contentType"] as? String } == ["video", "audio"])
        for (set, id) in zip(sets, ["video", "audio"]) {
            let protections = try #require(set["protections"] as? [[String: Any]])
            let kid = try #require(package.keyIDs[id])
            #expect((protections.first?["defaultKID"] as? String)?.replacingOccurrences(of: "-", with: "") == kid)
            #expect(protections.first?["value"] as? String == "cbcs")
            #expect(protections.map { $0["scheme"] as? String }.contains("urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"))
            #expect(set["laurls"] as? [String] == [DASHManifest.licenseURLPlaceholder, DASHManifest.licenseURLPlaceholder + "|EME-1.0"])
            let representation = try #require((set["representations"] as? [[String: Any]])?.first)
            #expect(representation["media"] as? String == "\(id)/$Number$.m4s" && representation["startNumber"] as? Int == 1)
        }

        // Shaka Packager 3.8.0, the same input and keys: the same renditions, boundaries, codecs and bandwidths (1 %).
        let shaka = TestMedia.temporaryDirectory("shaka-cmaf")
        let keyList = ["video", "audio"].map { id in
            "label=\(id.uppercased()):key_id=\(package.keyIDs[id] ?? ""):key=\(package.keys[id] ?? "")"
        }.joined(separator: ",")
        var arguments = ["video", "audio"].map { id in
            "in=\(source),stream=\(id),init_segment=\(shaka)/\(id)/init.mp4,segment_template=\(shaka)/\(id)/$Number$.m4s,"
                + "playlist_name=\(id).m3u8,drm_label=\(id.uppercased())" + (id == "audio" ? ",hls_group_id=audio" : "")
        }
        arguments += ["--protection_scheme", "cbcs", "--enable_raw_key_encryption", "--keys", keyList, "--protection_systems", "CommonSystem",
                      "--clear_lead", "0", "--segment_duration", "6", "--generate_static_live_mpd",
                      "--hls_master_playlist_output", "\(shaka)/master.m3u8", "--mpd_output", "\(shaka)/manifest.mpd"]
        let packaged = try run(try IndependentTools.shakaPackager(), arguments)
        try #require(packaged.status == 0, "Shaka Packager: \(packaged.stderr)")
        var theirPlaylists: [String: Data] = [:]
        for name in ["master.m3u8", "video.m3u8", "audio.m3u8"] {
            theirPlaylists[name] = try Data(contentsOf: URL(fileURLWithPath: "\(shaka)/\(name)"))
        }
        let theirs = try IndependentTools.m3u8(theirPlaylists)
        #expect(theirs["video.m3u8"]?["durations"] as? [Double] == read["video.m3u8"]?["durations"] as? [Double])
        let theirMaster = try HLSParser.parseMaster(try #require(theirPlaylists["master.m3u8"]))
        let ourMaster = try HLSParser.parseMaster(try package.data("master.m3u8"))
        try #require(theirMaster.variants.count == 1 && ourMaster.variants.count == 1)
        let (a, b) = (ourMaster.variants[0], theirMaster.variants[0])
        #expect(a.codecs?.map { $0.lowercased() } == b.codecs?.map { $0.lowercased() })
        #expect(a.resolution == b.resolution)
        #expect(abs(Double(a.bandwidth) / Double(b.bandwidth) - 1) < 0.01, "BANDWIDTH \(a.bandwidth) vs Shaka's \(b.bandwidth)")
        let theirMPD = try #require(try Self.cmafSummary(["mpd", "\(shaka)/manifest.mpd"]) as? [String: Any])
        let theirSets = try #require(theirMPD["sets"] as? [[String: Any]])
        #expect(theirSets.map { $0["contentType"] as? String } == ["video", "audio"])
        for (ours, theirs) in zip(sets, theirSets) {
            let o = try #require((ours["representations"] as? [[String: Any]])?.first)
            let t = try #require((theirs["representations"] as? [[String: Any]])?.first)
            #expect((o["codecs"] as? String)?.lowercased() == (t["codecs"] as? String)?.lowercased())
            #expect(o["timescale"] as? Int == t["timescale"] as? Int)
            let (ob, tb) = (try #require(o["bandwidth"] as? Int), try #require(t["bandwidth"] as? Int))
            #expect(abs(Double(ob) / Double(tb) - 1) < 0.01, "\(ours["contentType"] ?? "") bandwidth \(ob) vs Shaka's \(tb)")
            if ours["contentType"] as? String == "video" { #expect(o["durations"] as? [Int] == t["durations"] as? [Int]) }
            // Shaka's KID in its MPD is the one we gave it: the same key, so the same protection signalling.
            let theirProtections = try #require(theirs["protections"] as? [[String: Any]])
            #expect(theirProtections.first?["defaultKID"] as? String == (ours["protections"] as? [[String: Any]])?.first?["defaultKID"] as? String)
        }
    }

    /// Two aligned video renditions (English sound in the top one), a Spanish `--audio` file and
    /// an English WebVTT file: every rendition decrypts with its component's key, the playlists
    /// and the MPD list them by language, and Shaka Packager's master for the same video and
    /// audio has the same variants with BANDWIDTH within 1 %.
    @Test func ladderWithLanguagesAndSubtitles() throws {
        let gop = ["-c:v", "libx264", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0"]
        let top = try TestMedia.make("cmaf-top.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-f", "lavfi",
                                                      "-i", "sine=frequency=440", "-t", "13", "-metadata:s:a:0", "language=eng"] + gop + ["-c:a", "aac"])
        let low = try TestMedia.make("cmaf-low.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-t", "13"] + gop)
        let spanish = try TestMedia.make("cmaf-es.m4a", ["-f", "lavfi", "-i", "sine=frequency=660", "-t", "13", "-c:a", "aac"])
        let work = TestMedia.temporaryDirectory("cmaf-ladder")
        let vtt = work + "/talk.en.vtt"
        try Data("WEBVTT\n\n00:01.000 --> 00:07.000\nAcross a boundary\n\n00:12.000 --> 00:12.500\nLast\n".utf8)
            .write(to: URL(fileURLWithPath: vtt))
        let out = work + "/package/"
        _ = try CMAFPackager.package(inputs: [top, low], audio: [AudioInput(path: spanish, language: "es")],
                                     subtitles: [SubtitleInput(path: vtt, language: "en")], output: out, options: try KASFixture.options())
        let package = try OpenedCMAF(out)
        #expect(package.keyIDs.keys.sorted() == ["audio-en", "audio-es", "video-1", "video-2"])
        #expect(package.names.contains("subtitles-en/1.vtt") && package.names.contains("subtitles-en.m3u8"))

        let ffmpeg8 = try IndependentTools.ffmpeg8()
        for (id, component, input, map) in [("video-1", "video", top, "0:v"), ("video-2", "video", low, "0:v"),
                                            ("audio-en", "audio", top, "0:a"), ("audio-es", "audio", spanish, "0:a")] {
            let key = try #require(package.keys[component])
            let track = try package.track(id)
            #expect(try FFmpeg.streamHash(decrypting: track, keyHex: key, ffmpeg: ffmpeg8)
                    == (try FFmpeg.streamHash(input, map: map)), "\(id)")
            // Debian's ffprobe reads every rendition without a key: the codec and picture size are clear.
            let trackFile = work + "/\(id).mp4"
            try track.write(to: URL(fileURLWithPath: trackFile))
            let probe = try run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "json", trackFile])
            try #require(probe.status == 0, "ffprobe \(id): \(probe.stderr)")
            let streams = try #require((try JSONSerialization.jsonObject(with: probe.stdout) as? [String: Any])?["streams"] as? [[String: Any]])
            #expect(streams.first?["codec_name"] as? String == (component == "video" ? "h264" : "aac"), "\(id)")
            if id == "video-2" { #expect(streams.first?["width"] as? Int == 160 && streams.first?["height"] as? Int == 90) }
        }

        let mpd = try #require(try Self.cmafSummary(["mpd", out + "manifest.mpd"]) as? [String: Any])
        let sets = try #require(mpd["sets"] as? [[String: Any]])
        #expect(sets.map { $0["contentType"] as? String } == ["video", "audio", "audio", "text"])
        #expect(sets.map { $0["lang"] as? String } == [nil, "en", "es", "en"])
        #expect((sets[0]["representations"] as? [[String: Any]])?.map { $0["id"] as? String } == ["video-1", "video-2"])
        #expect((sets[3]["protections"] as? [[String: Any]])?.isEmpty == true)
        #expect((sets[3]["representations"] as? [[String: Any]])?.first?["media"] as? String == "subtitles-en/$Number$.vtt")

        var playlists: [String: Data] = [:]
        for name in package.names where name.hasSuffix(".m3u8") { playlists[name] = try package.data(name) }
        let read = try IndependentTools.m3u8(playlists)
        #expect(read["master.m3u8"]?["variants"] as? [String] == ["video-1.m3u8", "video-2.m3u8"])
        #expect(Set(read["master.m3u8"]?["renditions"] as? [String] ?? []) == ["audio-en.m3u8", "audio-es.m3u8", "subtitles-en.m3u8"])
        #expect(read["subtitles-en.m3u8"]?["segments"] as? [String] == ["subtitles-en/1.vtt", "subtitles-en/2.vtt", "subtitles-en/3.vtt"])

        let shaka = TestMedia.temporaryDirectory("shaka-cmaf-ladder")
        let keys = "label=VIDEO:key_id=\(package.keyIDs["video-1"] ?? ""):key=\(package.keys["video"] ?? ""),"
            + "label=AUDIO:key_id=\(package.keyIDs["audio-en"] ?? ""):key=\(package.keys["audio"] ?? "")"
        var arguments: [String] = []
        for (n, (input, stream, label, extra)) in [(top, "video", "VIDEO", ""), (low, "video", "VIDEO", ""),
                                                   (top, "audio", "AUDIO", ",language=en,hls_group_id=audio"),
                                                   (spanish, "audio", "AUDIO", ",language=es,hls_group_id=audio")].enumerated() {
            arguments.append("in=\(input),stream=\(stream),init_segment=\(shaka)/\(n)/init.mp4,segment_template=\(shaka)/\(n)/$Number$.m4s,"
                             + "playlist_name=\(n).m3u8,drm_label=\(label)\(extra)")
        }
        arguments += ["--protection_scheme", "cbcs", "--enable_raw_key_encryption", "--keys", keys, "--protection_systems", "CommonSystem",
                      "--clear_lead", "0", "--segment_duration", "6", "--hls_master_playlist_output", "\(shaka)/master.m3u8"]
        let packaged = try run(try IndependentTools.shakaPackager(), arguments)
        try #require(packaged.status == 0, "Shaka Packager: \(packaged.stderr)")
        let theirs = try HLSParser.parseMaster(try Data(contentsOf: URL(fileURLWithPath: "\(shaka)/master.m3u8")))
        let ours = try HLSParser.parseMaster(try package.data("master.m3u8"))
        let theirVariants = theirs.variants.sorted { $0.bandwidth > $1.bandwidth }
        try #require(theirVariants.count == ours.variants.count)
        for (a, b) in zip(ours.variants, theirVariants) {
            #expect(a.resolution == b.resolution)
            #expect(a.codecs?.map { $0.lowercased() } == b.codecs?.map { $0.lowercased() })
            #expect(abs(Double(a.bandwidth) / Double(b.bandwidth) - 1) < 0.01, "\(a.uri): BANDWIDTH \(a.bandwidth) vs Shaka's \(b.bandwidth)")
        }
        #expect(Set(ours.renditions.filter { $0.type == .audio }.compactMap(\.language))
                == Set(theirs.renditions.filter { $0.type == .audio }.compactMap(\.language)))
    }
}
