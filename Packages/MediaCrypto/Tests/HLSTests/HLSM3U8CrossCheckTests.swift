import Foundation
import Testing
@testable import MediaDRMHLS
import MediaDRMFPSv2

/// Playlists written here are read by an independent parser, PyPI `m3u8`, which must see the same
/// segments (count, durations, URIs, titles, byte ranges, keys) and the same variants.
@Suite struct HLSM3U8CrossCheckTests {
    typealias F = HLSFixtures

    /// MEDIADRM_PYTHON, else `<repo root>/.venv/bin/python` (what `make deps` creates).
    static func python() throws -> String {
        let fm = FileManager.default
        if let path = ProcessInfo.processInfo.environment["MEDIADRM_PYTHON"], !path.isEmpty, fm.isExecutableFile(atPath: path) {
            return path
        }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { root.deleteLastPathComponent() }   // HLSTests/Tests/MediaCrypto/Packages/<file>
        let venv = root.appendingPathComponent(".venv/bin/python").path
        guard fm.isExecutableFile(atPath: venv) else {
            throw CrossCheckFailure("no Python venv with m3u8 (MEDIADRM_PYTHON unset and \(venv) missing): run make deps")
        }
        return venv
    }

    struct CrossCheckFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static let script = #"""
import json, sys
try:
    import m3u8
except ImportError:
    sys.stderr.write("m3u8 is not installed in this venv: run make deps\n")
    sys.exit(3)
out = []
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        p = m3u8.loads(f.read())
    if p.is_variant:
        out.append({
            "variant": True,
            "playlists": [{"uri": v.uri, "bandwidth": v.stream_info.bandwidth,
                           "average": v.stream_info.average_bandwidth, "codecs": v.stream_info.codecs,
                           "resolution": list(v.stream_info.resolution) if v.stream_info.resolution else None,
                           "frame_rate": repr(v.stream_info.frame_rate) if v.stream_info.frame_rate is not None else None}
                          for v in p.playlists],
            "media": [{"uri": m.uri, "type": m.type, "group_id": m.group_id, "language": m.language,
                       "channels": m.channels} for m in p.media],
            "iframes": [v.uri for v in p.iframe_playlists],
        })
    else:
        out.append({
            "variant": False,
            "target": p.target_duration,
            "sequence": p.media_sequence,
            "endlist": p.is_endlist,
            "segments": [{"duration": repr(s.duration), "uri": s.uri, "title": s.title or "",
                          "byterange": s.byterange, "discontinuity": bool(s.discontinuity),
                          "key_method": s.key.method if s.key else None,
                          "key_uri": s.key.uri if s.key else None,
                          "key_iv": s.key.iv if s.key else None,
                          "map": s.init_section.uri if s.init_section else None}
                         for s in p.segments],
        })
print(json.dumps(out))
"""#

    static func readWithM3U8(_ texts: [String]) throws -> [[String: Any]] {
        let python = try python()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hls-m3u8-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let scriptURL = dir.appendingPathComponent("read.py")
        try Data(script.utf8).write(to: scriptURL)
        var args = [scriptURL.path]
        for (i, text) in texts.enumerated() {
            let url = dir.appendingPathComponent("p\(i).m3u8")
            try Data(text.utf8).write(to: url)
            args.append(url.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = args
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CrossCheckFailure("m3u8 reader failed (\(process.terminationStatus)): \(String(decoding: errData, as: UTF8.self)) — run make deps")
        }
        let json = try JSONSerialization.jsonObject(with: data)
        guard let array = json as? [[String: Any]], array.count == texts.count else {
            throw CrossCheckFailure("unexpected m3u8 reader output")
        }
        return array
    }

    static func longMedia() -> HLSMediaPlaylist {
        var rng = SplitMix(seed: 31)
        var segments: [HLSSegment] = []
        for n in 0..<1_000 {
            var s = HLSSegment(duration: Double(rng.next() % 10_000_000) / 1_000_003, uri: "long/\(n).ts")
            if n % 97 == 0 { s.discontinuity = true }
            if n % 50 == 0 { s.keys = [HLSKey(method: .aes128, uri: "https://k.example/\(n)")] }
            segments.append(s)
        }
        return HLSMediaPlaylist(version: 3, targetDuration: 10, mediaSequence: 5, segments: segments, endList: false)
    }

    @Test func mediaPlaylistsWrittenHereReadTheSameInM3U8() throws {
        var randomDurations: [Double] = []
        var rng = SplitMix(seed: 5)
        for _ in 0..<300 { randomDurations.append(Double(rng.next() % 6_000_000 + 1) / 1_000_000) }
        let models = [F.mediaModel("video"), F.mediaModel("audio"), F.richMedia, Self.longMedia(),
                      HLSFPSv2.mediaPlaylist(component: "video", policyUUID: F.uuid, iv: F.iv, segmentDurations: randomDurations)]
        let results = try Self.readWithM3U8(try models.map { m throws(HLSError) in try HLSWriter.write(m) })
        for (model, result) in zip(models, results) {
            #expect(result["variant"] as? Bool == false)
            #expect(result["target"] as? Int == model.targetDuration)
            #expect(result["sequence"] as? Int == model.mediaSequence ?? 0)
            #expect(result["endlist"] as? Bool == model.endList)
            let segments = try #require(result["segments"] as? [[String: Any]])
            try #require(segments.count == model.segments.count)
            for (i, (ours, theirs)) in zip(model.segments, segments).enumerated() {
                #expect((theirs["duration"] as? String).flatMap(Double.init) == ours.duration, "segment \(i)")
                #expect(theirs["uri"] as? String == ours.uri, "segment \(i)")
                #expect(theirs["title"] as? String == ours.title, "segment \(i)")
                #expect(theirs["byterange"] as? String == ours.byteRange?.description, "segment \(i)")
                #expect(theirs["discontinuity"] as? Bool == ours.discontinuity, "segment \(i)")
                let keys = model.effectiveKeys(forSegment: i)
                let key = keys.last
                #expect(theirs["key_uri"] as? String == key?.uri, "segment \(i)")
                let theirMethod = theirs["key_method"] as? String
                if let key {
                    #expect(theirMethod == key.method.rawValue, "segment \(i)")
                } else {
                    #expect(theirMethod == nil || theirMethod == "NONE", "segment \(i)")
                }
                #expect(theirs["key_iv"] as? String == key?.iv.map { "0x" + HLSWriter.upperHex($0) }, "segment \(i)")
                #expect(theirs["map"] as? String == model.effectiveMap(forSegment: i)?.uri, "segment \(i)")
            }
        }
    }

    @Test func masterPlaylistsWrittenHereReadTheSameInM3U8() throws {
        let models = [F.masterModel(audio: true), F.masterModel(audio: false), F.richMaster]
        let results = try Self.readWithM3U8(try models.map { m throws(HLSError) in try HLSWriter.write(m) })
        for (model, result) in zip(models, results) {
            #expect(result["variant"] as? Bool == true)
            let playlists = try #require(result["playlists"] as? [[String: Any]])
            try #require(playlists.count == model.variants.count)
            for (ours, theirs) in zip(model.variants, playlists) {
                #expect(theirs["uri"] as? String == ours.uri)
                #expect(theirs["bandwidth"] as? Int == ours.bandwidth)
                #expect(theirs["average"] as? Int == ours.averageBandwidth)
                #expect(theirs["codecs"] as? String == ours.codecs?.joined(separator: ","))
                #expect(theirs["resolution"] as? [Int] == ours.resolution.map { [$0.width, $0.height] })
                #expect((theirs["frame_rate"] as? String).flatMap(Double.init) == ours.frameRate)
            }
            let media = try #require(result["media"] as? [[String: Any]])
            try #require(media.count == model.renditions.count)
            for (ours, theirs) in zip(model.renditions, media) {
                #expect(theirs["uri"] as? String == ours.uri)
                #expect(theirs["type"] as? String == ours.type.rawValue)
                #expect(theirs["group_id"] as? String == ours.groupID)
                #expect(theirs["language"] as? String == ours.language)
                #expect(theirs["channels"] as? String == ours.channels)
            }
            #expect(result["iframes"] as? [String] == model.iFrameVariants.map(\.uri))
        }
    }
}
