// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
#if canImport(Glibc)
import Foundation
import Glibc
import MediaDRMMP4
#endif

/// Mixes a source's sound tracks and re-encodes them once as AAC-LC with ffmpeg (fps-v2 §8.2
/// #13, §7.5 #6). Each track is placed on the source's own timeline (`-copyts`, so a late or
/// delayed track keeps its offset), padded with silence from time 0 (`aresample` with
/// `first_pts=0`) and at the end to cover the video (`apad=whole_dur`), mixed (`amix`), and
/// encoded into an MP4 in a private temporary directory. The caller places the result through
/// its edit list like any AAC track.
public enum AudioReencoder {
    /// The AAC channel layouts ffmpeg's encoder writes with channel configurations 1 to 7.
    static let layouts: [Int: String] = [1: "mono", 2: "stereo", 3: "3.0", 4: "4.0", 5: "5.0", 6: "5.1", 8: "7.1"]

    /// The output channel count for sources with these channel counts: the largest, mapped to a
    /// layout AAC-LC signals without a program config (7 becomes 5.1, more than 8 becomes 7.1).
    static func outputChannels(_ counts: [Int]) -> Int {
        let most = counts.max() ?? 2
        switch most {
        case ...0: return 2
        case 1 ... 6: return most
        case 7: return 6
        default: return 8
        }
    }

    /// ffmpeg: an explicit path, else `$MEDIADRM_FFMPEG`, else the first `ffmpeg` on `$PATH`.
    public static func findFFmpeg(_ explicit: String?) -> String? {
        if let explicit { return FileManager.default.isExecutableFile(atPath: explicit) ? explicit : nil }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["MEDIADRM_FFMPEG"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// ffmpeg, or a failure saying that `need` (what it is wanted for) needs it and where to give it.
    static func requireFFmpeg(_ explicit: String?, for need: String) throws(PackagerError) -> String {
        guard let ffmpeg = findFFmpeg(explicit) else {
            throw PackagerError(.externalTool, "\(need), which needs ffmpeg, and ffmpeg was not found"
                                + (explicit.map { " at '\($0)'" } ?? " (install it, or give --ffmpeg PATH)"))
        }
        return ffmpeg
    }

    /// The ffmpeg arguments (without the executable) that mix the audio streams `streams`
    /// (indices among the input's audio streams) of `input` into `output`.
    static func arguments(input: String, streams: [Int], channels: Int, coverSeconds: Double, output: String) -> [String] {
        let layout = layouts[channels] ?? "stereo"
        var graph = streams.enumerated().map { n, stream in "[0:a:\(stream)]aresample=async=1:first_pts=0[a\(n)]" }
        let tail = "aformat=sample_fmts=fltp:channel_layouts=\(layout),apad=whole_dur=\(String(format: "%.6f", max(coverSeconds, 0.001)))[out]"
        if streams.count > 1 {
            graph.append(streams.indices.map { "[a\($0)]" }.joined() + "amix=inputs=\(streams.count):duration=longest:dropout_transition=0," + tail)
        } else {
            graph.append("[a0]" + tail)
        }
        return ["-nostdin", "-hide_banner", "-loglevel", "error", "-copyts", "-i", input,
                "-filter_complex", graph.joined(separator: ";"), "-map", "[out]",
                "-c:a", "aac", "-profile:a", "aac_low", "-b:a", "\(64_000 * channels)",
                "-map_metadata", "-1", "-map_chapters", "-1", "-f", "mp4", "-y", output]
    }

    /// The channel count ffmpeg decodes from audio stream `stream` of `input` (its first frame),
    /// nil when it cannot tell. The sample entry's count is not reliable (ISO MP4 writers often put
    /// 2 there whatever the codec carries), and a program config (AAC channel configuration 0)
    /// needs decoding anyway.
    static func decodedChannels(input: String, stream: Int, ffmpeg: String) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-hide_banner", "-i", input, "-map", "0:a:\(stream)", "-frames:a", "1",
                             "-af", "ashowinfo", "-f", "null", "-"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        for line in text.split(separator: "\n") where line.contains("ashowinfo") {
            for field in line.split(separator: " ") where field.hasPrefix("channels:") {
                if let n = Int(field.dropFirst(9)), n > 0 { return n }
            }
        }
        return nil
    }

    /// Mixes the audio streams `streams` (indices among the input's audio streams, carrying the
    /// sound tracks `sounds`) into one AAC-LC track that covers `video`, in a private directory
    /// held by the result until it is released.
    static func reencode(input: String, streams: [Int], sounds: [SourceTrack], covering video: SourceTrack,
                         ffmpeg: String) throws(PackagerError) -> (movie: SourceMovie, track: SourceTrack, config: AudioSpecificConfig,
                                                                   directory: PrivateTemporaryDirectory) {
        let directory = try PrivateTemporaryDirectory(label: "packager-audio")
        let channels = outputChannels(streams.enumerated().map { n, stream in
            decodedChannels(input: input, stream: stream, ffmpeg: ffmpeg)
                ?? (try? sounds[n].audioSpecificConfig())?.channelCount ?? Int(sounds[n].audioEntry?.channelCount ?? 2)
        })
        let coverSeconds = Double(SegmentPlan.packageEnd(video) + video.edit.delay) / Double(video.timescale)
        let path = try reencode(input: input, streams: streams, channels: channels, coverSeconds: coverSeconds,
                                ffmpeg: ffmpeg, directory: directory.path)
        let mixed = try SourceMovie(path: path)
        guard let track = mixed.tracks.first(where: { $0.kind == .audio && $0.samples.count > 0 }),
              let config = try track.audioSpecificConfig(), config.audioObjectType == 2, config.channelCount != nil else {
            throw PackagerError(.externalTool, "ffmpeg did not produce AAC-LC audio")
        }
        return (mixed, track, config, directory)
    }

    /// Runs ffmpeg and returns the path of the clear AAC file it wrote in `directory`.
    static func reencode(input: String, streams: [Int], channels: Int, coverSeconds: Double, ffmpeg: String,
                         directory: String) throws(PackagerError) -> String {
        let output = directory + "/audio.m4a"
        try FFmpegRun.run(ffmpeg, arguments(input: input, streams: streams, channels: channels, coverSeconds: coverSeconds, output: output),
                          purpose: "re-encode the audio to AAC-LC")
        return output
    }
}

/// A directory only this process can enter (mode 0700), removed with everything in it when the
/// object is released or `remove()` is called.
public final class PrivateTemporaryDirectory {
    public let path: String
    private var removed = false

    public init(label: String) throws(PackagerError) {
        var template = Array((NSTemporaryDirectory() + "/\(label).XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else { throw PackagerError(.io, "a private temporary directory could not be created") }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func remove() {
        guard !removed else { return }
        removed = true
        try? FileManager.default.removeItem(atPath: path)
    }

    deinit { remove() }
}
