// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMHLS
import Testing

/// HEVC in tdf-hls (docs/formats.md, "HEVC"): libx265 clips, `hvc1` and `hev1`, packaged with
/// the `packager` tool, played with `player play`: every packet of both tracks equals the
/// source's (streamhash) and decodes to the same frames; the master's `CODECS` names the profile
/// and level ffprobe reads from the source. fps-v2 refuses the same input naming its sections.
@Suite struct HEVCPlaybackTests {
    @Test(arguments: ["hvc1", "hev1"])
    func playsBitIdenticallyWithExactCodecs(_ entry: String) throws {
        let clip = try Clips.hevc(entry)
        let (kas, _) = try Stage.start()
        let (package, url) = try Stage.publish(clip, .tdfHLS)
        let (result, media) = try ClientPlayer.playTool(url, kas: kas, token: try kas.token("hevc-\(entry)"))
        #expect(result.status == 0, "\(result.stderr)")
        let clear = try #require(media)
        #expect(try SourceMatch.check(clear, against: clip).isEmpty)

        let master = try HLSParser.parseMaster(try Data(contentsOf: URL(fileURLWithPath: package.path + "master.m3u8")))
        let codecs = try #require(master.variants.first?.codecs)
        let video = try #require(codecs.first { $0.hasPrefix(entry + ".") }, "CODECS \(codecs)")
        let probe = try FFmpeg.probeVideo(clip.path)
        // ISO/IEC 14496-15 Annex E.3: <entry>.<profile idc>.<compatibility>.<tier><level>[.<constraints>]
        let fields = video.split(separator: ".").map(String.init)
        #expect(fields.count >= 4, "\(video)")
        #expect(probe.profile == "Main", "ffprobe profile \(probe.profile)")
        #expect(fields[1] == "1", "\(video): Main is general_profile_idc 1")
        #expect(fields[3] == "L\(probe.level)", "\(video): ffprobe level \(probe.level)")
        #expect(probe.tag == entry)
    }

    @Test func fpsV2RefusesHEVCNamingTheSection() throws {
        let clip = try Clips.hevc("hvc1")
        let (kas, origin) = try Stage.start()
        let name = "hevc-fps-v2-\(UUID().uuidString.prefix(8).lowercased())"
        #expect(throws: TestFailure.self) {
            _ = try Publisher.package(clip, profile: .fpsV2, into: origin.root, name: name, kasURL: kas.publicURL,
                                      kasPublicKeyPEM: kas.publicKeyPEM, mediaFlags: Stage.everydayRules)
        }
        let work = Scratch.directory("hevc-refusal")
        let keyFile = work + "/kas.pem", policyFile = work + "/policy.json", output = work + "/out.tdf"
        try Data(kas.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: keyFile))
        try Data(Publisher.policy().utf8).write(to: URL(fileURLWithPath: policyFile))
        let result = try run(try Tools.packager, [
            "package", clip.path, "-o", output, "--profile", "fps-v2", "--kas-url", kas.publicURL,
            "--kas-public-key", keyFile, "--policy", policyFile, "--classification", Publisher.classification,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("HEVC"), "\(result.stderr)")
        #expect(result.stderr.contains("fps-v2 §3, §8 #8"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
