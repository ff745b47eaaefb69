import Foundation
import MediaDRMWebVTT
import Testing

/// WebVTT subtitles in tdf-hls (docs/formats.md, "Subtitles"): two languages packaged with
/// `packager --subtitles FILE:lang=xx`, clear and with `--protect-subtitles`; the PyPI m3u8
/// package reads the master's SUBTITLES renditions and their playlists; every segment carries
/// the RFC 8216 §3.5 timestamp map; a cue that spans a boundary is in both segments; and the
/// cues `player play --subtitles-out` writes, repeats merged, equal the source's (times, text,
/// identifiers, settings), while the media still plays bit-identically.
@Suite struct SubtitleTests {
    /// The `av` clip is 4 s with an IDR a second, so `--segment-duration 2` cuts at 2 s.
    static let english = """
        WEBVTT

        STYLE
        ::cue { color: yellow }

        opening
        00:00:00.250 --> 00:00:01.000 align:start
        In the first segment.

        00:00:00.500 --> 00:00:03.900
        Over the whole clip,
        on two lines.

        00:00:01.500 --> 00:00:02.500 line:0
        Across the boundary.

        00:00:02.000 --> 00:00:02.750
        Starts on the boundary.

        00:00:03.000 --> 00:00:05.000
        Runs past the end.

        """
    static let chinese = """
        WEBVTT

        00:00:01.900 --> 00:00:02.100
        字幕跨越边界

        00:00:03.000 --> 00:00:03.500
        第二段

        """

    static func write(_ text: String, _ name: String) throws -> String {
        let path = Scratch.directory("subtitles") + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [false, true])
    func mergedCuesEqualTheSource(_ protected: Bool) throws {
        let clip = try Clips.av()
        let en = try Self.write(Self.english, "talk.en.vtt"), zh = try Self.write(Self.chinese, "talk.zh.vtt")
        let (kas, _) = try Stage.start()
        let flags = ["--subtitles", "\(en):lang=en", "--subtitles", "\(zh):lang=zh"] + (protected ? ["--protect-subtitles"] : [])
        let (package, url) = try Stage.publish(clip, .tdfHLS, mediaFlags: flags)
        let suffix = protected ? ".tdf" : ".vtt"

        // The master and the subtitle playlists as m3u8 reads them.
        let summary = try Venv.hlsSummary(package.path + "master.m3u8")
        let renditions = try #require(summary["renditions"] as? [[String: Any]]).filter { $0["type"] as? String == "SUBTITLES" }
        #expect(renditions.map { $0["language"] as? String } == ["en", "zh"])
        #expect(renditions.allSatisfy { $0["groupId"] as? String == "subs" && $0["autoselect"] as? String == "YES" })
        let variants = try #require(summary["variants"] as? [[String: Any]])
        #expect(variants.allSatisfy { $0["subtitles"] as? String == "subs" })
        let media = try #require(summary["media"] as? [String: [String: Any]])
        let videoSegments = try #require(media["video.m3u8"]?["segments"] as? [[String: Any]])
        #expect(videoSegments.count == 2)
        for rendition in renditions {
            let uri = try #require(rendition["uri"] as? String)
            let playlist = try #require(media[uri])
            let segments = try #require(playlist["segments"] as? [[String: Any]])
            #expect(segments.map { $0["duration"] as? Double } == videoSegments.map { $0["duration"] as? Double })
            #expect(segments.allSatisfy { ($0["uri"] as? String)?.hasSuffix(suffix) == true })
            #expect((playlist["maps"] as? [String])?.isEmpty == true)
        }

        if !protected {
            // Each segment carries the map; the cue across 2 s is in both segments.
            let first = try WebVTTFile(parsing: try Data(contentsOf: URL(fileURLWithPath: package.path + "subtitles-en-segment0.vtt")))
            let second = try WebVTTFile(parsing: try Data(contentsOf: URL(fileURLWithPath: package.path + "subtitles-en-segment1.vtt")))
            for segment in [first, second] {
                #expect(segment.headerLines == ["X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000"])
                #expect(segment.preambleBlocks == ["STYLE\n::cue { color: yellow }"])
            }
            #expect(first.cues.map(\.text).contains("Across the boundary."))
            #expect(second.cues.map(\.text).contains("Across the boundary."))
            #expect(!first.cues.map(\.text).contains("Starts on the boundary."))
        }

        for (language, source) in [("en", Self.english), ("zh", Self.chinese)] {
            let out = Scratch.directory("subtitles-out") + "/\(language).vtt"
            let media = Scratch.directory("subtitles-media") + "/clear.mp4"
            let result = try run(try Tools.player, ["play", url, "--kas", kas.publicURL, "--ca", kas.caFile,
                                                    "--token", try kas.token("subtitles-\(protected)-\(language)"),
                                                    "--output", media, "--subtitles-out", out, "--subtitles-lang", language])
            #expect(result.status == 0, "\(result.stderr)")
            let written = try WebVTTFile(parsing: try Data(contentsOf: URL(fileURLWithPath: out)))
            let expected = try WebVTTFile(parsing: Array(source.utf8))
            #expect(written.cues == expected.cues)
            #expect(written.preambleBlocks == expected.preambleBlocks)
            #expect(try SourceMatch.check(try Data(contentsOf: URL(fileURLWithPath: media)), against: clip).isEmpty)
        }
    }

    @Test func refusals() throws {
        let clip = try Clips.av()
        let (kas, origin) = try Stage.start()
        let bad = try Self.write("WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nBackwards\n", "bad.vtt")
        let name = "subtitles-bad-\(UUID().uuidString.prefix(8).lowercased())"
        do {
            _ = try Publisher.package(clip, profile: .tdfHLS, into: origin.root, name: name, kasURL: kas.publicURL,
                                      kasPublicKeyPEM: kas.publicKeyPEM, mediaFlags: ["--subtitles", "\(bad):lang=en"])
            Issue.record("a cue ending before its start was packaged")
        } catch let failure as TestFailure {
            #expect(failure.description.contains("line 3"), "\(failure)")
            #expect(failure.description.contains("bad.vtt"), "\(failure)")
        }
        #expect(!FileManager.default.fileExists(atPath: origin.root + "/\(name)"))
        let en = try Self.write(Self.english, "ok.vtt")
        do {
            _ = try Publisher.package(clip, profile: .tdfHLS, into: origin.root, name: name + "-nolang", kasURL: kas.publicURL,
                                      kasPublicKeyPEM: kas.publicKeyPEM, mediaFlags: ["--subtitles", en])
            Issue.record("subtitles without a language were packaged")
        } catch let failure as TestFailure {
            #expect(failure.description.contains("lang="), "\(failure)")
        }
    }
}
