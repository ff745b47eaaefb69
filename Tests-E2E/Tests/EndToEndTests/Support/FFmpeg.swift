import Foundation

/// The independent referee: Debian's ffmpeg hashes packets (`streamhash`) and decoded frames
/// (`framemd5`) of the source and of what the system produced.
enum FFmpeg {
    /// `-c copy -f streamhash -hash md5` of one stream (`0:v`, `0:a`) of a file, without the
    /// stream index so it compares across files whose track order differs.
    static func streamHash(_ path: String, map: String) throws -> String {
        let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-i", path, "-map", map, "-c", "copy",
                                       "-f", "streamhash", "-hash", "md5", "-"])
        guard r.status == 0 else { throw TestFailure("ffmpeg streamhash of \(map) failed: \(r.stderr)") }
        return dropIndex(r.stdoutText)
    }

    /// The same for media given on a pipe (ffmpeg reads fragmented MP4 from a pipe).
    static func streamHash(pipe data: Data, map: String) throws -> String {
        let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-i", "pipe:0", "-map", map, "-c", "copy",
                                       "-f", "streamhash", "-hash", "md5", "-"], input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg streamhash of \(map) from a pipe failed: \(r.stderr)") }
        return dropIndex(r.stdoutText)
    }

    /// Every stream's packet hash (`MD5=…`), keyed by its type letter (`v`, `a`).
    static func streamHashes(_ path: String) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for line in try streamHash(path, map: "0").split(separator: "\n") {
            let fields = line.split(separator: ",", maxSplits: 1)
            if fields.count == 2 { hashes[String(fields[0])] = String(fields[1]) }
        }
        return hashes
    }

    /// Decoded frame hashes (the md5 column of framemd5) of one stream. The source is decoded
    /// without its edit list: the packager places AAC priming by `tfdt` instead of trimming it
    /// with an edit (docs/formats.md), so both decoders then see the same packets.
    static func frameHashes(_ path: String, map: String) throws -> [String] {
        let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-ignore_editlist", "1", "-i", path,
                                       "-map", map, "-f", "framemd5", "-"])
        guard r.status == 0 else { throw TestFailure("ffmpeg framemd5 of \(map) failed: \(r.stderr)") }
        return md5Column(r.stdoutText)
    }

    static func frameHashes(pipe data: Data, map: String) throws -> [String] {
        let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-i", "pipe:0", "-map", map,
                                       "-f", "framemd5", "-"], input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg framemd5 of \(map) from a pipe failed: \(r.stderr)") }
        return md5Column(r.stdoutText)
    }

    /// ffprobe's reading of the first video stream: the profile name ("Main"), `level`
    /// (general_level_idc for HEVC, level_idc for H.264) and the sample entry tag.
    static func probeVideo(_ path: String) throws -> (profile: String, level: Int, tag: String) {
        let r = try run(Tools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                        "stream=profile,level,codec_tag_string", "-of", "default=noprint_wrappers=1", path])
        guard r.status == 0 else { throw TestFailure("ffprobe of \(path) failed: \(r.stderr)") }
        var fields: [String: String] = [:]
        for line in r.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let profile = fields["profile"], let level = fields["level"].flatMap(Int.init), let tag = fields["codec_tag_string"] else {
            throw TestFailure("ffprobe did not report profile, level and tag: \(r.stdoutText)")
        }
        return (profile, level, tag)
    }

    /// "0,v,MD5=..." -> "v,MD5=...".
    static func dropIndex(_ text: String) -> String {
        text.split(separator: "\n").map { $0.split(separator: ",").dropFirst().joined(separator: ",") }
            .joined(separator: "\n")
    }

    static func md5Column(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }
}
