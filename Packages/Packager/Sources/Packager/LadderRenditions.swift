import Foundation

/// The video and audio inputs of a stream package (tdf-hls, cmaf) once `--ladder` has been
/// applied: without a ladder the inputs as given; with one, the rungs ffmpeg made from the one
/// master (rungs taller than the master left out with a warning) and the master's own sound as
/// the first audio input. The rungs live in a private directory removed by `remove()`.
struct LadderRenditions {
    var videoInputs: [String]
    var audioInputs: [AudioInput]
    var warnings: [String] = []
    /// Seconds ffmpeg took to make the rungs (nil without a ladder).
    var encodeSeconds: Double?
    private var directory: PrivateTemporaryDirectory?

    init(inputs: [String], audio: [AudioInput], ladder: BitrateLadder?, segmentDuration: Double, ffmpegPath: String?,
         say: (String) -> Void) throws(PackagerError) {
        videoInputs = inputs
        audioInputs = audio
        guard let ladder else { return }
        guard inputs.count == 1, let master = inputs.first else {
            throw PackagerError(.invalidArgument, "--ladder makes the renditions from one master; give exactly one input")
        }
        let ffmpeg = try AudioReencoder.requireFFmpeg(ffmpegPath, for: "--ladder makes its rungs with libx264")
        // A rung taller than the master would only be upscaled: more bits, no more picture.
        let masterMovie = try SourceMovie(path: master)
        let masterHeight = Int(try SourceSelection(movie: masterMovie).video.videoEntry?.height ?? 0)
        var kept = ladder
        let taller = kept.rungs.filter { $0.height > masterHeight }
        kept.rungs.removeAll { $0.height > masterHeight }
        guard !kept.rungs.isEmpty else {
            throw PackagerError(.invalidArgument, "every --ladder rung is taller than the master (\(masterHeight) lines); name rungs of at most its height")
        }
        if !taller.isEmpty {
            warnings.append("--ladder: \(taller.map(\.name).joined(separator: ", ")) left out: taller than the master (\(masterHeight) lines)")
        }
        let directory = try PrivateTemporaryDirectory(label: "packager-ladder")
        self.directory = directory
        let started = Date()
        do {
            videoInputs = try kept.encode(input: master, segmentDuration: segmentDuration, ffmpeg: ffmpeg, directory: directory.path, say: say)
        } catch {
            directory.remove()
            throw error
        }
        encodeSeconds = Date().timeIntervalSince(started)
        say(String(format: "ffmpeg made %d rungs in %.2f s", videoInputs.count, encodeSeconds ?? 0))
        // The rungs are video only: the master's own sound tracks become the audio renditions.
        if !TDFHLSSources.soundTracks(masterMovie).isEmpty {
            audioInputs.insert(AudioInput(path: master), at: 0)
        }
    }

    /// Removes the rungs.
    func remove() { directory?.remove() }
}
