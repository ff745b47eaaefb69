import Foundation

/// The media of a tdf-hls package (docs/formats.md, "tdf-hls"): one video variant per input,
/// cut at the same times in every variant so a client can switch at any segment boundary
/// (RFC 8216 §6.2.4), and one audio rendition per sound track. The sound comes from every video
/// input (a track whose language an earlier input already gave is the same soundtrack in
/// another rung and is not repeated) and from each `--audio` file. A track that is not AAC-LC
/// covering the video is re-encoded alone with ffmpeg; tracks are never mixed.
final class TDFHLSSources {
    struct Variant {
        let id: String
        let input: String
        let stream: ComponentStream
        let plan: SegmentPlan
        let attributes: VideoAttributes
    }

    struct Audio {
        let id: String
        let stream: ComponentStream
        let plan: SegmentPlan
        /// BCP 47.
        let language: String
        let channels: Int
    }

    /// Two variants' segment boundaries agree when within a millisecond (timescales differ).
    static let alignmentToleranceSeconds = 0.001

    let variants: [Variant]
    let audio: [Audio]
    /// Why each re-encoded sound track was re-encoded.
    let reencodeReasons: [String]
    private let scratch: [PrivateTemporaryDirectory]

    /// - Parameter protected: the video will be encrypted in `cbcs` (the cmaf profile), so each
    ///   sample's subsample map is made and held to the 255-byte `senc` entry; false for
    ///   tdf-hls's clear fragments.
    init(inputs: [String], audioInputs: [AudioInput], segmentDuration: Double, ffmpegPath: String?, maximumSegments: Int,
         protected: Bool = false, say: (String) -> Void) throws(PackagerError) {
        guard !inputs.isEmpty else { throw PackagerError(.invalidArgument, "no input to package") }
        var variants: [Variant] = []
        var movies: [SourceMovie] = []
        for (n, input) in inputs.enumerated() {
            say("reading \(input)")
            let movie = try SourceMovie(path: input)
            let track = try SourceSelection(movie: movie, allowsHEVC: true).video
            say("analysing \(track.samples.count) video samples")
            let stream = try ComponentStream.video(movie, track: track, protected: protected)
            let plan = try SegmentPlan(video: track, isIDR: stream.isIDR, audio: nil, targetDuration: segmentDuration,
                                       maximumSegments: maximumSegments)
            let variant = Variant(id: inputs.count == 1 ? "video" : "video-\(n + 1)", input: input, stream: stream, plan: plan,
                                  attributes: try VideoAttributes(track))
            if let reference = variants.first { try Self.checkAligned(variant, with: reference) }
            variants.append(variant)
            movies.append(movie)
        }

        // Every sound track, with the variant it is placed against.
        struct Candidate { let input: String; let movie: SourceMovie; let track: SourceTrack; let stream: Int; let variant: Int; let language: String }
        var candidates: [Candidate] = []
        var earlierLanguages = Set<String>()
        for (n, movie) in movies.enumerated() {
            let sounds = Self.soundTracks(movie)
            let found = sounds.map { Candidate(input: inputs[n], movie: movie, track: $0.track, stream: $0.stream, variant: n,
                                               language: FPSv2Playlists.bcp47($0.track.language)) }
            candidates += found.filter { !earlierLanguages.contains($0.language) }
            earlierLanguages.formUnion(found.map(\.language))
        }
        for extra in audioInputs {
            say("reading \(extra.path)")
            let movie = try SourceMovie(path: extra.path)
            let sounds = Self.soundTracks(movie)
            guard !sounds.isEmpty else { throw PackagerError(.unsupportedInput, "the audio file '\(extra.path)' has no audio track") }
            candidates += sounds.map { Candidate(input: extra.path, movie: movie, track: $0.track, stream: $0.stream, variant: 0,
                                                 language: extra.language ?? FPSv2Playlists.bcp47($0.track.language)) }
        }

        var audio: [Audio] = []
        var reasons: [String] = []
        var scratch: [PrivateTemporaryDirectory] = []
        var usedIDs = Set<String>()
        for candidate in candidates {
            let reference = variants[candidate.variant].stream.track
            var (track, config, reason) = SourceSelection.decide(video: reference, sounds: [candidate.track])
            var movie = candidate.movie
            if let reason {
                let ffmpeg = try AudioReencoder.requireFFmpeg(ffmpegPath, for: "\(candidate.input): \(reason), so it must be re-encoded to AAC-LC")
                say("re-encoding \(candidate.track.name) of \(candidate.input) to AAC-LC with ffmpeg: \(reason)")
                let reencoded = try AudioReencoder.reencode(input: candidate.input, streams: [candidate.stream], sounds: [candidate.track],
                                                            covering: reference, ffmpeg: ffmpeg)
                (movie, track, config) = (reencoded.movie, reencoded.track, reencoded.config)
                scratch.append(reencoded.directory)
                reasons.append("\(candidate.input) \(candidate.track.name): \(reason)")
            }
            guard let track, let channels = config?.channelCount else {
                throw PackagerError(.unsupportedInput, "\(candidate.input) \(candidate.track.name) cannot be packaged as AAC-LC")
            }
            let plan = try SegmentPlan(video: reference, isIDR: variants[candidate.variant].stream.isIDR, audio: track,
                                       targetDuration: segmentDuration, maximumSegments: maximumSegments)
            var id = candidates.count == 1 ? "audio" : "audio-\(candidate.language.lowercased())"
            if usedIDs.contains(id) { id += "-\(audio.count + 1)" }
            usedIDs.insert(id)
            audio.append(Audio(id: id, stream: ComponentStream.audio(movie, track: track), plan: plan,
                               language: candidate.language, channels: channels))
        }
        self.variants = variants
        self.audio = audio
        reencodeReasons = reasons
        self.scratch = scratch
        say("\(variants[0].plan.segments.count) segments of about \(segmentDuration) s, \(variants.count) video variant(s), "
            + "\(audio.count) audio rendition(s)")
    }

    /// Removes the re-encoded audio files (also removed when this object is released).
    func removeScratch() { scratch.forEach { $0.remove() } }

    /// The audio tracks with samples, each with its index among the movie's audio streams
    /// (ffmpeg's `0:a:N`).
    static func soundTracks(_ movie: SourceMovie) -> [(track: SourceTrack, stream: Int)] {
        movie.tracks.filter { $0.kind == .audio }.enumerated().filter { $0.element.samples.count > 0 }.map { ($0.element, $0.offset) }
    }

    /// Refuses a variant whose segments do not start at the reference's times, naming the first
    /// time at which they differ.
    static func checkAligned(_ variant: Variant, with reference: Variant) throws(PackagerError) {
        let a = reference.plan, b = variant.plan
        func seconds(_ plan: SegmentPlan, _ n: Int) -> Double { Double(plan.segments[n].start) / Double(plan.videoTimescale) }
        for n in 0 ..< max(a.segments.count, b.segments.count) {
            let ta = n < a.segments.count ? seconds(a, n) : nil
            let tb = n < b.segments.count ? seconds(b, n) : nil
            if let ta, let tb, abs(ta - tb) <= alignmentToleranceSeconds { continue }
            let first = [ta, tb].compactMap { $0 }.min() ?? 0
            func cut(_ t: Double?) -> String { t.map { String(format: "%.3f s", $0) } ?? "no further segment" }
            throw PackagerError(.unsupportedInput,
                                String(format: "the inputs' IDR frames do not line up: first mismatch at %.3f s ", first)
                                + "(segment \(n) of \(reference.input) starts at \(cut(ta)), of \(variant.input) at \(cut(tb))); "
                                + "encode every rendition with closed GOPs at one IDR cadence (for example ffmpeg -force_key_frames "
                                + "'expr:gte(t,n_forced*2)' -sc_threshold 0), or give one master with --ladder")
        }
    }
}
