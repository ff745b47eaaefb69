// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMEncoding
import MediaDRMHLS
import Testing

/// HEVC in tdf-hls (docs/formats.md, "HEVC"): libx265 clips, `hvc1` and `hev1`, packaged with
/// the `packager` tool, played with `player play`: every packet of both tracks equals the
/// source's (streamhash) and decodes to the same frames; the master's `CODECS` names the profile
/// and level ffprobe reads from the source. In the cmaf profile (HEVC `cbcs`), `player decrypt`
/// gives back the source's packets with keys unwrapped by the openssl CLI. fps-v2 refuses the
/// same input naming its sections.
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

    /// The client's `cbcs` decryption (`player decrypt`, the Client's `FragmentDecryptor`) of a
    /// cmaf HEVC package written by the `packager` tool: each track, decrypted with the key the
    /// openssl CLI unwraps from `manifest.json`, holds the source's packets bit for bit.
    @Test(arguments: ["hvc1", "hev1"])
    func cmafDecryptsWithPlayerDecrypt(_ entry: String) throws {
        let clip = try Clips.hevc(entry)
        let work = Scratch.directory("hevc-cmaf-\(entry)")
        let privateKey = work + "/kas.pem", publicKey = work + "/kas.pub.pem", policy = work + "/policy.json", output = work + "/package/"
        try run(Tools.openssl, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privateKey]).check("openssl genpkey")
        try run(Tools.openssl, ["pkey", "-in", privateKey, "-pubout", "-out", publicKey]).check("openssl pkey")
        try Data(Publisher.policy().utf8).write(to: URL(fileURLWithPath: policy))
        try run(try Tools.packager, ["package", clip.path, "-o", output, "--profile", "cmaf", "--kas-url", "https://kas.example.com",
                                     "--kas-public-key", publicKey, "--policy", policy, "--segment-duration", "2", "--quiet"]).check("packager")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output + "manifest.json"))) as? [String: Any])
        let keyAccess = try #require((manifest["encryptionInformation"] as? [String: Any])?["keyAccess"] as? [[String: Any]])
        let listed = try #require((manifest["meta"] as? [String: Any])?["keys"] as? [[String: Any]])
        try #require(keyAccess.count == 2 && listed.count == 2)
        for (index, (id, map)) in [("video", "0:v"), ("audio", "0:a")].enumerated() {
            let wrapped = work + "/wrapped-\(id).bin"
            try Base64.decode(try #require(keyAccess[index]["wrappedKey"] as? String)).write(to: URL(fileURLWithPath: wrapped))
            let unwrap = try run(Tools.openssl, ["pkeyutl", "-decrypt", "-inkey", privateKey, "-pkeyopt", "rsa_padding_mode:oaep", "-in", wrapped])
            try unwrap.check("openssl pkeyutl")
            let kid = try #require(listed.first { $0["component"] as? String == id }?["kid"] as? String).replacingOccurrences(of: "-", with: "")
            var segments: [String] = []
            while FileManager.default.fileExists(atPath: output + "\(id)/\(segments.count + 1).m4s") { segments.append(output + "\(id)/\(segments.count + 1).m4s") }
            #expect(segments.count >= 2)
            let clear = work + "/\(id).mp4"
            try run(try Tools.player, ["decrypt", "--key", "\(kid):\(Hex.encode(unwrap.stdout))", "-o", clear, "--quiet", output + "\(id)/init.mp4"] + segments)
                .check("player decrypt")
            #expect(try FFmpeg.streamHash(pipe: try Data(contentsOf: URL(fileURLWithPath: clear)), map: "0:0")
                    == (try FFmpeg.streamHash(clip.path, map: map)), "\(entry) \(id)")
        }
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
