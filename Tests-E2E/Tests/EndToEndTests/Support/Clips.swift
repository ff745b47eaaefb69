import Foundation

/// Short test clips made by ffmpeg once per process (x264 + AAC, lavfi test sources).
enum Clips {
    struct Clip: Sendable, CustomStringConvertible {
        let name: String
        let path: String
        let hasAudio: Bool
        var description: String { name }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [String: Clip] = [:]

    /// 320x180 at 24 fps, 4 s, one IDR a second and no B-frames; AAC-LC stereo at 48 kHz with a
    /// different tone in each channel (a swapped or folded channel changes the hash).
    static func av() throws -> Clip {
        try make("av", hasAudio: true, [
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=24",
            "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)|sin(660*2*PI*t):s=48000",
            "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-g", "24", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-ac", "2", "-b:a", "96k",
        ])
    }

    /// 160x90 at 25 fps, 3 s, video only.
    static func silent() throws -> Clip {
        try make("silent", hasAudio: false, [
            "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25",
            "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
        ])
    }

    /// 240x136 at 30 fps, 5 s, 3 B-frames with pyramid (composition offsets in every fragment),
    /// AAC stereo.
    static func bframes() throws -> Clip {
        try make("bframes", hasAudio: true, [
            "-f", "lavfi", "-i", "mandelbrot=size=240x136:rate=30",
            "-f", "lavfi", "-i", "aevalsrc=sin(330*2*PI*t)|0.5*sin(550*2*PI*t):s=44100",
            "-t", "5", "-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-x264-params", "b-pyramid=normal",
            "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-b:a", "64k",
        ])
    }

    static func all() throws -> [Clip] { [try av(), try silent(), try bframes()] }

    /// An encoder's `seconds` at `size` (`160x90`) and 25 fps, an IDR frame every 2 s (a live
    /// segment's length), with a 440 Hz AAC tone: two sizes are two encoders' tracks.
    static func liveEncoder(_ size: String, seconds: Double) throws -> Clip {
        try make("live-encoder-\(size)-\(seconds)", hasAudio: true, [
            "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25", "-f", "lavfi", "-i", "sine=frequency=440",
            "-t", String(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0",
            "-pix_fmt", "yuv420p", "-c:a", "aac",
        ])
    }

    /// HEVC (libx265 Main) 320x180 at 25 fps, 4 s, an IRAP picture a second with B-frames and
    /// x265's open GOPs (CRA pictures after the first IDR), AAC stereo. `hvc1` keeps the
    /// parameter sets in `hvcC` only; `hev1` also repeats them in band before every IRAP.
    static func hevc(_ entry: String) throws -> Clip {
        let inBand = entry == "hev1" ? ":repeat-headers=1" : ""
        return try make("hevc-\(entry)", hasAudio: true, [
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25",
            "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)|sin(660*2*PI*t):s=48000",
            "-t", "4", "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
            "-x265-params", "keyint=25:min-keyint=25:scenecut=0:bframes=3:log-level=error" + inBand, "-tag:v", entry,
            "-c:a", "aac", "-ac", "2", "-b:a", "64k",
        ])
    }

    private static func make(_ name: String, hasAudio: Bool, _ arguments: [String]) throws -> Clip {
        lock.lock()
        defer { lock.unlock() }
        if let clip = made[name] { return clip }
        let path = Scratch.directory + "/\(name).mp4"
        let result = try run(Tools.ffmpeg, ["-nostdin", "-loglevel", "error", "-y"] + arguments + [path])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not make the \(name) clip: \(result.stderr)") }
        let clip = Clip(name: name, path: path, hasAudio: hasAudio)
        made[name] = clip
        return clip
    }
}
