import Foundation

/// `--ladder 1080p,720p,480p,360p`: the video renditions ffmpeg makes from one master before
/// packaging. Every rung is H.264 (libx264) with closed GOPs and an IDR frame forced at every
/// multiple of the same cadence, so segment boundaries line up across rungs (RFC 8216 §6.2.4:
/// a client switches variants at a segment boundary). Rungs are video only; the sound comes
/// from the master itself.
public struct BitrateLadder: Sendable, Equatable {
    public struct Rung: Sendable, Equatable {
        public var name: String
        public var height: Int
        /// Target video bit rate, bits per second.
        public var bitRate: Int
    }

    /// The rungs `--ladder` knows, with the bit rates of common streaming ladders.
    public static let known: [Rung] = [
        Rung(name: "2160p", height: 2160, bitRate: 14_000_000), Rung(name: "1440p", height: 1440, bitRate: 8_000_000),
        Rung(name: "1080p", height: 1080, bitRate: 5_000_000), Rung(name: "720p", height: 720, bitRate: 2_800_000),
        Rung(name: "540p", height: 540, bitRate: 2_000_000), Rung(name: "480p", height: 480, bitRate: 1_400_000),
        Rung(name: "360p", height: 360, bitRate: 800_000), Rung(name: "240p", height: 240, bitRate: 400_000),
        Rung(name: "144p", height: 144, bitRate: 200_000),
    ]

    /// The IDR cadence of every rung, seconds: Shaka Packager's and Apple's usual 2 s GOP, or
    /// the segment duration when that is shorter.
    public static let idrInterval = 2.0

    public var rungs: [Rung]

    /// `1080p,720p,...`: each a known rung, none twice.
    public init(argument: String) throws(PackagerError) {
        var rungs: [Rung] = []
        for name in argument.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            guard let rung = Self.known.first(where: { $0.name == name }) else {
                throw PackagerError(.invalidArgument, "'\(name)' is not a ladder rung; use a comma-separated list of "
                                    + Self.known.map(\.name).joined(separator: ", "))
            }
            guard !rungs.contains(rung) else { throw PackagerError(.invalidArgument, "the ladder names \(name) twice") }
            rungs.append(rung)
        }
        self.rungs = rungs
    }

    /// The ffmpeg arguments (without the executable) that make `rung` from `input`.
    static func arguments(input: String, rung: Rung, segmentDuration: Double, output: String) -> [String] {
        let interval = String(format: "%.6f", min(idrInterval, segmentDuration))
        return ["-nostdin", "-hide_banner", "-loglevel", "error", "-i", input, "-map", "0:v:0", "-an", "-sn", "-dn",
                "-vf", "scale=-2:\(rung.height)", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
                "-b:v", "\(rung.bitRate)", "-maxrate", "\(rung.bitRate * 3 / 2)", "-bufsize", "\(rung.bitRate * 2)",
                "-force_key_frames", "expr:gte(t,n_forced*\(interval))", "-forced-idr", "1", "-sc_threshold", "0",
                "-x264-params", "open-gop=0:scenecut=0:keyint=1000:min-keyint=1",
                "-map_metadata", "-1", "-map_chapters", "-1", "-movflags", "+faststart", "-f", "mp4", "-y", output]
    }

    /// Runs ffmpeg once per rung and returns the rung files, in the ladder's order, in `directory`.
    func encode(input: String, segmentDuration: Double, ffmpeg: String, directory: String,
                say: (String) -> Void) throws(PackagerError) -> [String] {
        var outputs: [String] = []
        for rung in rungs {
            let output = directory + "/\(rung.name).mp4"
            say("ffmpeg: encoding the \(rung.name) rung")
            try FFmpegRun.run(ffmpeg, Self.arguments(input: input, rung: rung, segmentDuration: segmentDuration, output: output),
                              purpose: "make the \(rung.name) rung")
            outputs.append(output)
        }
        return outputs
    }
}
