import Foundation
import MediaDRMEncoding
import MediaDRMHLS
import MediaDRMMedia
import Testing
@testable import Packager

/// `--key-per-resolution` against independent tools: an SD and an HD rendition each decrypt with
/// ffmpeg 8.1 under their own class's key (unwrapped from `manifest.json` with the KAS private
/// key) to the source's packets, PyPI `m3u8` and `mpegdash` read the playlists and the MPD, and
/// Shaka Packager 3.8.0 given the same inputs with SD, HD and AUDIO labels lays out the same
/// adaptation sets and keys.
@Suite struct CMAFKeyPerResolutionTests {
    @Test func sdAndHDRenditionsHaveTheirOwnKeys() throws {
        let gop = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0"]
        let hd = try TestMedia.make("keyres-hd.mp4", ["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25", "-f", "lavfi",
                                                      "-i", "sine=frequency=440", "-t", "5", "-metadata:s:a:0", "language=eng"] + gop + ["-c:a", "aac"])
        let sd = try TestMedia.make("keyres-sd.mp4", ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "5"] + gop)
        let out = TestMedia.temporaryDirectory("cmaf-keyres") + "/package/"
        var options = try KASFixture.options()
        options.segmentDuration = 2
        let summary = try CMAFPackager.package(inputs: [hd, sd], keyPerResolution: true, output: out, options: options)
        let package = try CMAFPackagerTests.OpenedCMAF(out)

        // One key per class present (no UHD key) and audio's, in the policy and in meta.keys; every key and key ID distinct.
        #expect(package.keys.keys.sorted() == ["audio", "video-hd", "video-sd"])
        #expect(Set(package.keys.values).count == 3)
        let components = try #require(package.meta["keys"]?.array).map { $0.object?["component"]?.string }
        #expect(components == ["video-sd", "video-hd", "audio"])
        #expect(package.keyIDs.keys.sorted() == ["audio", "video-1", "video-2"])
        #expect(Set(package.keyIDs.values).count == 3, "the SD, HD and audio key IDs differ")
        let classOf = ["video-1": "video-hd", "video-2": "video-sd", "audio": "audio"]

        // ffmpeg 8.1 decrypts each rendition with its class's key to its source's packets.
        let ffmpeg8 = try IndependentTools.ffmpeg8()
        for (id, input, map) in [("video-1", hd, "0:v"), ("video-2", sd, "0:v"), ("audio", hd, "0:a")] {
            let component = try #require(classOf[id])
            let key = try #require(package.keys[component])
            #expect(try FFmpeg.streamHash(decrypting: try package.track(id), keyHex: key, ffmpeg: ffmpeg8)
                    == (try FFmpeg.streamHash(input, map: map)), "\(id)")
        }

        // The SD key does not open the HD rendition: the classes really are keyed apart.
        let wrongKey = try #require(package.keys["video-sd"])
        #expect((try? FFmpeg.streamHash(decrypting: try package.track("video-1"), keyHex: wrongKey, ffmpeg: ffmpeg8))
                != (try FFmpeg.streamHash(hd, map: "0:v")))

        // Each init's tenc names its class's key ID; the common pssh names all three.
        let initNames = classOf.keys.sorted().map { out + "\($0)/init.mp4" }
        let inits = try #require(try CMAFPackagerTests.cmafSummary(["init"] + initNames) as? [String: [String: Any]])
        for id in classOf.keys {
            let box = try #require(inits[out + "\(id)/init.mp4"])
            #expect((box["tenc"] as? [String: Any])?["kid"] as? String == package.keyIDs[id], "\(id)")
            let pssh = try #require((box["pssh"] as? [[String: Any]])?.first)
            #expect(Set(pssh["kids"] as? [String] ?? []) == Set(package.keyIDs.values), "\(id)")
        }

        // HLS: PyPI m3u8 reads every playlist; each media playlist's FairPlay URI names its class's component.
        var playlists: [String: Data] = [:]
        for name in ["master.m3u8"] + classOf.keys.map({ "\($0).m3u8" }) { playlists[name] = try package.data(name) }
        let read = try IndependentTools.m3u8(playlists)
        #expect(Set(read["master.m3u8"]?["variants"] as? [String] ?? []) == ["video-1.m3u8", "video-2.m3u8"])
        for (id, component) in classOf {
            #expect(read["\(id).m3u8"]?["maps"] as? [String] == ["\(id)/init.mp4"])
            let keys = try HLSParser.parseMedia(try package.data("\(id).m3u8")).segments.first?.keys ?? []
            #expect(keys.first?.uri == "skd://\(summary.policyUUID)/\(component)", "\(id)")
            let kid = try Hex.decode(try #require(package.keyIDs[id]))
            #expect(keys.last?.uri == "data:text/plain;base64,\(Base64.encode(kid))", "\(id)")
        }

        // DASH: PyPI mpegdash reads two video AdaptationSets, each one key's renditions under its default_KID, with ClearKey.
        let mpd = try #require(try CMAFPackagerTests.cmafSummary(["mpd", out + "manifest.mpd"]) as? [String: Any])
        let sets = try #require(mpd["sets"] as? [[String: Any]])
        #expect(sets.map { $0["contentType"] as? String } == ["video", "video", "audio"])
        func layout(_ sets: [[String: Any]]) -> [String: [String]] {
            var byKID: [String: [String]] = [:]
            for set in sets {
                let protections = set["protections"] as? [[String: Any]] ?? []
                let kid = (protections.first?["defaultKID"] as? String ?? "").replacingOccurrences(of: "-", with: "").lowercased()
                byKID[kid, default: []] += (set["representations"] as? [[String: Any]] ?? []).map { r in
                    "\(set["contentType"] as? String ?? "") \(r["width"] ?? "")x\(r["height"] ?? "")"
                }
            }
            return byKID
        }
        for set in sets {
            let protections = try #require(set["protections"] as? [[String: Any]])
            #expect(protections.map { $0["scheme"] as? String }.contains("urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"))
        }
        let ours = layout(sets)
        #expect(ours[package.keyIDs["video-1"] ?? ""]?.count == 1 && ours[package.keyIDs["video-2"] ?? ""]?.count == 1)

        // Shaka Packager 3.8.0, the same inputs under its own SD, HD and AUDIO labels with our keys: the same sets per key.
        let shaka = TestMedia.temporaryDirectory("shaka-keyres")
        let labels = [("SD", "video-sd", "video-2"), ("HD", "video-hd", "video-1"), ("AUDIO", "audio", "audio")]
        try CMAFHEVCTests.shaka([(hd, "video", "HD", ""), (sd, "video", "SD", ""), (hd, "audio", "AUDIO", ",hls_group_id=audio")],
                                keys: labels.map { label, component, rendition in
                                    "label=\(label):key_id=\(package.keyIDs[rendition] ?? ""):key=\(package.keys[component] ?? "")"
                                }.joined(separator: ","), out: shaka)
        let theirMPD = try #require(try CMAFPackagerTests.cmafSummary(["mpd", shaka + "/manifest.mpd"]) as? [String: Any])
        let theirSets = try #require(theirMPD["sets"] as? [[String: Any]])
        #expect(theirSets.count == sets.count)
        #expect(layout(theirSets) == ours, "Shaka's sets per key \(layout(theirSets)), ours \(ours)")
    }
}

/// The class boundaries, inclusive, by pixel count as Shaka Packager draws them, and the
/// component ids the KAS admits (`MediaComponentList.videoClassIDs`).
@Suite struct VideoResolutionClassTests {
    @Test func pixelBoundaries() {
        let cases: [(Int, Int, VideoResolutionClass)] = [
            (160, 90, .sd), (768, 576, .sd), (720, 614, .sd), (720, 615, .hd), (769, 576, .hd), (1280, 720, .hd), (1920, 1080, .hd),
            (1921, 1080, .uhd1), (3840, 2160, .uhd1), (4096, 2160, .uhd1), (4097, 2160, .uhd2), (7680, 4320, .uhd2),
        ]
        for (width, height, expected) in cases {
            #expect(VideoResolutionClass(width: width, height: height) == expected, "\(width)x\(height)")
        }
        #expect(VideoResolutionClass.allCases.map(\.componentID) == MediaComponentList.videoClassIDs)
    }
}
