import Foundation
import MediaDRMHLS
import Testing
@testable import Packager

/// `--subtitles FILE:lang=TAG` and `SubtitleRenditions.write`: what it stores and what it
/// returns for the master playlist (the end-to-end suite plays it; docs/formats.md, "Subtitles").
@Suite struct SubtitleRenditionsTests {
    @Test func arguments() throws {
        #expect(try SubtitleInput(argument: "talk.en.vtt:lang=en") == SubtitleInput(path: "talk.en.vtt", language: "en"))
        #expect(try SubtitleInput(argument: "a:b.vtt:lang=zh-Hant") == SubtitleInput(path: "a:b.vtt", language: "zh-Hant"))
        let missing = try #require(throws: PackagerError.self) { try SubtitleInput(argument: "talk.vtt") }
        #expect(missing.reason.contains("lang=xx"), "\(missing.reason)")
        let bad = try #require(throws: PackagerError.self) { try SubtitleInput(argument: "talk.vtt:lang=english") }
        #expect(bad.reason.contains("not a BCP 47 language tag"), "\(bad.reason)")
    }

    @Test func writesSegmentsAndPlaylistsAndReturnsTheRenditions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subtitles-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/talk.vtt"
        try Data("WEBVTT\n\n00:00.500 --> 00:02.500\nAcross\n\n00:03.000 --> 00:03.500\nSecond\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        var files: [String: [UInt8]] = [:]
        let renditions = try SubtitleRenditions.write(
            [SubtitleInput(path: path, language: "en"), SubtitleInput(path: path, language: "en")],
            boundaries: [0, 2000, 4000], timescale: 1000, durations: [2, 2], protect: nil) { (name, bytes) throws(PackagerError) in
                files[name] = bytes
            }
        #expect(renditions == [
            HLSRendition(type: .subtitles, groupID: "subs", name: "English", language: "en", autoselect: true, uri: "subtitles-en.m3u8"),
            HLSRendition(type: .subtitles, groupID: "subs", name: "English 2", language: "en", autoselect: true, uri: "subtitles-en-2.m3u8"),
        ])
        #expect(Set(files.keys) == ["subtitles-en.m3u8", "subtitles-en-segment0.vtt", "subtitles-en-segment1.vtt",
                                    "subtitles-en-2.m3u8", "subtitles-en-2-segment0.vtt", "subtitles-en-2-segment1.vtt"])
        let second = String(decoding: try #require(files["subtitles-en-segment1.vtt"]), as: UTF8.self)
        #expect(second == "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n00:00:00.500 --> 00:00:02.500\nAcross\n\n00:00:03.000 --> 00:00:03.500\nSecond\n\n")
        let playlist = try HLSParser.parseMedia(Data(try #require(files["subtitles-en.m3u8"])))
        #expect(playlist.segments.map(\.uri) == ["subtitles-en-segment0.vtt", "subtitles-en-segment1.vtt"])
        #expect(playlist.segments.map(\.duration) == [2, 2])
        #expect(playlist.effectiveMap(forSegment: 0) == nil)
    }

    @Test func malformedSubtitlesNameTheFileAndLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).vtt").path
        try Data("WEBVTT\n\n00:00.500 --> 00:00.100\nBackwards\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: PackagerError.self) {
            try SubtitleRenditions.write([SubtitleInput(path: path, language: "en")], boundaries: [0, 1000], timescale: 1000,
                                         durations: [1], protect: nil) { (_, _) throws(PackagerError) in }
        }
        #expect(error.code == .malformedInput)
        #expect(error.reason.contains(path) && error.reason.contains("line 3"), "\(error.reason)")
        let missing = try #require(throws: PackagerError.self) {
            try SubtitleRenditions.write([SubtitleInput(path: path + ".none", language: "en")], boundaries: [0, 1000], timescale: 1000,
                                         durations: [1], protect: nil) { (_, _) throws(PackagerError) in }
        }
        #expect(missing.code == .io)
    }
}
