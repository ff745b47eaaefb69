import MediaDRMEncoding
import Foundation
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMTDF
import Testing
@testable import Packager

@Suite struct TDFHLSPackagerTests {
    /// The directory a tdf-hls package was written to, with every segment opened by the KAS key.
    struct OpenedStream {
        var names: [String]
        var files: [String: Data]
        /// Per component: init + every decrypted segment, as a player presents them.
        var clear: [String: Data]
        var manifests: [TDFManifest]
    }

    func open(_ dir: String, components: [String]) throws -> OpenedStream {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        var files: [String: Data] = [:]
        for name in names { files[name] = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)) }
        let privateKey = try KASPrivateKey(pemRepresentation: try String(contentsOfFile: KASFixture.privateKeyPath, encoding: .utf8))
        var clear: [String: Data] = [:]
        var manifests: [TDFManifest] = []
        for id in components {
            var data = try #require(files["\(id)-init.mp4"])
            var n = 0
            while let archive = files["\(id)-segment\(n).tdf"] {
                data += try TDF.decrypt(archive, unwrapWith: privateKey)
                manifests.append(try TDFArchiveReader(data: archive).manifest)
                n += 1
            }
            clear[id] = data
        }
        return OpenedStream(names: names, files: files, clear: clear, manifests: manifests)
    }

    @Test func standardClipAsTDFSegments() throws {
        let source = try TestMedia.standard()
        let out = TestMedia.temporaryDirectory("tdfhls") + "/stream/"
        let summary = try TDFHLSPackager.package(input: source, output: out, options: try KASFixture.options())
        #expect(summary.profile == "tdf-hls" && summary.isDirectory)
        #expect(summary.components.map(\.id) == ["video", "audio"])
        #expect(summary.segmentDurations == [6, 6, 1])
        let stream = try open(out, components: ["video", "audio"])
        var expected = ["master.m3u8"]
        for id in ["video", "audio"] {
            expected += ["\(id).m3u8", "\(id)-init.mp4"] + (0 ..< 3).map { "\(id)-segment\($0).tdf" }
        }
        #expect(stream.names == expected.sorted())
        #expect(Set(summary.entries) == Set(expected))
        #expect(!stream.names.contains { $0.hasPrefix(".") }, "no temporary left behind")

        // The clear init and the decrypted segments are the source's tracks, packet for packet.
        for (id, map) in [("video", "0:v"), ("audio", "0:a")] {
            let clear = try #require(stream.clear[id])
            #expect(try FFmpeg.streamHash(pipe: clear) == (try FFmpeg.streamHash(source, map: map)), "\(id)")
            let initBytes = try #require(stream.files["\(id)-init.mp4"])
            #expect(!initBytes.contains(Data("sinf".utf8)) && !initBytes.contains(Data("encv".utf8)) && !initBytes.contains(Data("enca".utf8)))
        }

        // Every segment is its own Standard TDF: a fresh key each (distinct wrapped keys and root
        // signatures), the same policy with one fresh uuid.
        #expect(stream.manifests.count == 6)
        let wrapped = stream.manifests.compactMap { $0.encryptionInformation.keyAccess.first?.wrappedKey }
        #expect(Set(wrapped).count == 6)
        let policies = Set(stream.manifests.map(\.encryptionInformation.policy))
        #expect(policies.count == 1)
        let policy = try TDFPolicy(base64: try #require(policies.first))
        #expect(policy.uuid == summary.policyUUID && policy.components == nil)
        #expect(policy.body.dataAttributes.map(\.attribute) == ["https://example.com/attr/tier/value/gold"])
        #expect(stream.manifests.allSatisfy { $0.encryptionInformation.keyAccess.first?.url == "https://kas.example.com" })

        // The independent decryptor opens every archive with the KAS private key.
        let python = try IndependentTools.python()
        let script = IndependentTools.repositoryRoot.appendingPathComponent("Tools/python/tdf_decrypt.py").path
        let scratch = TestMedia.temporaryDirectory("tdfhls-py")
        for name in stream.names where name.hasSuffix(".tdf") {
            let result = try run(python, [script, out + name, "--private-key", KASFixture.privateKeyPath, "-o", scratch + "/" + name + ".m4s"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let privateKey = try KASPrivateKey(pemRepresentation: try String(contentsOfFile: KASFixture.privateKeyPath, encoding: .utf8))
            let ours = try TDF.decrypt(try #require(stream.files[name]), unwrapWith: privateKey)
            #expect(try Data(contentsOf: URL(fileURLWithPath: scratch + "/" + name + ".m4s")) == ours, "\(name)")
        }

        // Ordinary RFC 8216 playlists, marked with the profile; our lenient parser and PyPI m3u8 agree.
        let masterBytes = try #require(stream.files["master.m3u8"])
        let master = try HLSParser.parseMaster(masterBytes, mode: .lenient)
        #expect(master.otherTags.contains(HLSTag(name: "EXT-X-SESSION-DATA", value: #"DATA-ID="net.arkavo.profile",VALUE="tdf-hls""#)))
        #expect(master.variants.map(\.uri) == ["video.m3u8"] && master.renditions.compactMap(\.uri) == ["audio.m3u8"])
        #expect(master.variants.first?.codecs == ["avc1.64000D", "mp4a.40.2"])
        #expect(master.sessionKeys.isEmpty)
        var playlists = ["master.m3u8": masterBytes]
        for id in ["video", "audio"] {
            let bytes = try #require(stream.files["\(id).m3u8"])
            playlists["\(id).m3u8"] = bytes
            let media = try HLSParser.parseMedia(bytes, mode: .lenient)
            #expect(media.segments.map(\.uri) == (0 ..< 3).map { "\(id)-segment\($0).tdf" })
            #expect(media.segments.map(\.duration) == [6, 6, 1])
            #expect(media.segments.allSatisfy { $0.keys.isEmpty })
            #expect(media.segments.first?.map?.uri == "\(id)-init.mp4")
            #expect(media.segments.first?.otherTags == [HLSTag(name: "EXT-X-DEFINE", value: #"NAME="net-arkavo-profile",VALUE="tdf-hls""#)])
            #expect(media.endList && media.playlistType == .vod)
            #expect(throws: HLSError.self) { _ = try HLSParser.parse(bytes, mode: .fpsV2Strict) }
        }
        let parsed = try IndependentTools.m3u8(playlists)
        #expect(parsed["master.m3u8"]?["sessionData"] as? [[String]] == [["net.arkavo.profile", "tdf-hls"]])
        #expect(parsed["master.m3u8"]?["renditions"] as? [String] == ["audio.m3u8"])
        for id in ["video", "audio"] {
            #expect(parsed["\(id).m3u8"]?["segments"] as? [String] == (0 ..< 3).map { "\(id)-segment\($0).tdf" })
            #expect(parsed["\(id).m3u8"]?["maps"] as? [String] == ["\(id)-init.mp4"])
            #expect(parsed["\(id).m3u8"]?["keys"] as? [String] == [])
            #expect(parsed["\(id).m3u8"]?["target"] as? Int == 6)
        }
    }

    @Test func cliWritesADirectoryAndLeavesNothingOnFailure() throws {
        let dir = TestMedia.temporaryDirectory("tdfhls-cli")
        let silent = try TestMedia.make("silent.mp4", ["-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-t", "2.5",
                                                       "-c:v", "libx264", "-g", "25"])
        let result = try PackagerBinary.package(silent, output: dir + "/out/", policy: #"{"body":{"dataAttributes":[{"attribute":"a"}]}}"#,
                                                extra: ["--profile", "tdf-hls", "--json", "--max-streams", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(report["profile"] as? String == "tdf-hls")
        let stream = try open(dir + "/out", components: ["video"])
        #expect(stream.names == ["master.m3u8", "video-init.mp4", "video-segment0.tdf", "video.m3u8"])
        #expect(try FFmpeg.streamHash(pipe: try #require(stream.clear["video"])) == (try FFmpeg.streamHash(silent, map: "0:v")))
        let policy = try TDFPolicy(base64: try #require(stream.manifests.first?.encryptionInformation.policy))
        #expect(policy.media?.object?["maxConcurrentStreams"]?.int64 == 1)
        // A refusal (the policy has no data attributes) leaves no directory and no temporary.
        let refused = try PackagerBinary.package(silent, output: dir + "/bad/", policy: #"{"body":{}}"#, extra: ["--profile", "tdf-hls"])
        #expect(refused.status == 1 && refused.stderr.contains("body.dataAttributes"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out"])
        // An existing non-empty directory is not overwritten.
        let again = try PackagerBinary.package(silent, output: dir + "/out/", extra: ["--profile", "tdf-hls"])
        #expect(again.status == 1 && again.stderr.contains("not empty"))
    }
}
