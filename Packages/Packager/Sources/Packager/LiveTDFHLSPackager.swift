import Foundation
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMMP4
import MediaDRMTDF

/// `packager live`: a tdf-hls stream written while its input arrives (docs/live.md). The input
/// is fragmented MP4 on a stream (`LiveInput`), cut at IDR frames (`LiveSegmenter`); each
/// segment is written as VOD tdf-hls writes one (a Standard TDF of the clear fragment, its own
/// key, wrapped to the KAS), its key period bound into its policy (`LivePolicy`); the media
/// playlists slide (`LivePlaylists`, `LiveWindow`) and the state that lets a restart continue is
/// kept beside them (`LiveState`).
///
/// Per segment, in this order, so that a crash at any point leaves no playlist naming a missing
/// segment: the segment files (atomic), the state, the playlists (atomic), then the deletion
/// of segments that left the playlists one playlist's worth of segments ago.
public final class LiveTDFHLSPackager {
    public static let profile = TDFHLSPackager.profile

    private let directory: String
    private let options: LiveOptions
    private let input: LiveInput
    private let encrypt: (TDFPolicy, String) -> TDFEncryptOptions
    private var policy: LivePolicy
    private var state: LiveState
    private let components: [String]
    private let windowRule: LiveWindow
    private let resumed: Bool
    private var firstOfRun = true
    private var written: [Int] = []
    private var periods: [Int64] = []
    private let say: (String) -> Void

    /// Packages `stream` into `output` until the stream ends. A directory holding a live state
    /// continues that stream, unless the stream ended (refused: its playlists are final);
    /// otherwise it must hold no playlist.
    public static func run(stream: any MP4ByteStream, output: String, options: LiveOptions,
                           limits: FragmentedMP4Limits = FragmentedMP4Limits()) throws(PackagerError) -> LiveSummary {
        let packager = try LiveTDFHLSPackager(stream: stream, output: output, options: options, limits: limits)
        return try packager.runToEnd()
    }

    private init(stream: any MP4ByteStream, output: String, options: LiveOptions, limits: FragmentedMP4Limits) throws(PackagerError) {
        try options.check()
        say = options.package.progress ?? { _ in }
        self.options = options
        windowRule = LiveWindow(window: options.window, dvr: options.dvrSeconds)
        let kasKey = try options.package.kasPublicKey()
        let package = options.package
        encrypt = { policy, mime in
            TDFEncryptOptions(kasURL: package.kasURL, kasPublicKey: kasKey, kid: package.kasKID, policy: policy, mimeType: mime)
        }
        let policyJSON = try package.requiredPolicy(profile: "live \(Self.profile)")
        directory = try Self.prepareDirectory(output)
        let previous = try LiveState.load(from: directory)
        if let previous, previous.ended {
            // RFC 8216 §6.2.1: once a playlist carries EXT-X-ENDLIST it must not change, so a
            // finished stream is never continued; players and caches took it as final.
            throw PackagerError(.invalidArgument, "the stream in \(output) ended (its playlists carry EXT-X-ENDLIST, which must not change): "
                                + "package the new input into a new output directory (-o); nothing was written")
        }
        let uuid: String
        if let previous { uuid = previous.policyUUID } else { uuid = try PackagePolicy.freshUUID() }
        policy = try LivePolicy(policyJSON: policyJSON, uuid: uuid, periodSeconds: options.keyPeriodSeconds)

        input = try LiveInput(stream: stream, limits: limits)
        components = ["video"] + (input.audio == nil ? [] : ["audio"])
        var inits = ["video": try InitSegment.clearVideo(input.video)]
        if let audio = input.audio { inits["audio"] = try InitSegment.clearAudio(audio) }

        if var state = previous {
            guard state.keyPeriod == options.keyPeriodSeconds else {
                throw PackagerError(.invalidArgument, "the stream in \(output) has a key period of \(state.keyPeriod) s; restart it with --key-period \(state.keyPeriod)")
            }
            guard state.components == components else {
                throw PackagerError(.unsupportedInput, "the stream in \(output) has \(state.components.joined(separator: " and ")); this input has \(components.joined(separator: " and "))")
            }
            // Where the timelines ended, in this input's timescales.
            state.videoEnd = Self.rescale(state.videoEnd, from: state.videoTimescale, to: input.video.timescale)
            state.videoTimescale = input.video.timescale
            if let audio = input.audio, let old = state.audioTimescale {
                state.audioEnd = Self.rescale(state.audioEnd, from: old, to: audio.timescale)
                state.audioTimescale = audio.timescale
            }
            let folder = directory, epoch = state.initEpoch
            let unchanged = inits.allSatisfy { id, bytes in
                FileManager.default.contents(atPath: Self.path(folder, LiveState.initName(id, epoch: epoch))) == Data(bytes)
            }
            if !unchanged { state.initEpoch += 1 }
            self.state = state
            resumed = true
        } else {
            state = LiveState(policyUUID: policy.uuid, streamStart: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)),
                              keyPeriod: options.keyPeriodSeconds, components: components,
                              targetDuration: Int(options.package.segmentDuration.rounded(.up)),
                              videoTimescale: input.video.timescale, audioTimescale: input.audio?.timescale)
            resumed = false
        }
        for (id, bytes) in inits {
            try Self.write(Data(bytes), to: Self.path(directory, LiveState.initName(id, epoch: state.initEpoch)))
        }
        try state.save(in: directory)
        say(resumed ? "continuing the stream in \(output) at media sequence \(state.nextSequence)" : "starting a live stream in \(output)")
    }

    private func runToEnd() throws(PackagerError) -> LiveSummary {
        var segmenter = LiveSegmenter(videoTimescale: input.video.timescale, audioTimescale: input.audio?.timescale,
                                      targetDuration: options.package.segmentDuration,
                                      resume: (state.videoEnd, state.audioEnd))
        while let (video, audio) = try input.next() {
            for segment in try segmenter.add(video: video, audio: audio) { try publish(segment, audioEnd: segmenter.audioTimelineEnd) }
        }
        if let last = segmenter.finish() { try publish(last, audioEnd: segmenter.audioTimelineEnd) }
        guard !state.segments.isEmpty else { throw PackagerError(.malformedInput, "the live input ended without a video sample") }
        state.ended = true
        try state.save(in: directory)
        try writePlaylists()
        say("the input ended: \(written.count) segment(s) written, playlists closed with EXT-X-ENDLIST")
        var warnings = input.ignoredTracks.map { "\($0) is not packaged (live takes one video and one audio track)" }
        if segmenter.droppedAudio > 0 {
            warnings.append("\(segmenter.droppedAudio) audio packet(s) started before the stream's timeline and were dropped")
        }
        let listed = windowRule.listedCount(state.segments.map(\.duration))
        return LiveSummary(output: directory, policyUUID: state.policyUUID, resumed: resumed,
                           sequences: (written.first ?? state.nextSequence) ..< state.nextSequence, periods: periods,
                           listed: listed, onDisk: state.segments.count, droppedAudioPackets: segmenter.droppedAudio, warnings: warnings)
    }

    /// Writes one segment of every component, then the state, the playlists, and deletes what left.
    private func publish(_ segment: LiveSegmenter.Segment, audioEnd: Int64) throws(PackagerError) {
        let n = state.nextSequence
        let vts = Double(input.video.timescale)
        let start = Double(segment.start) / vts, duration = Double(segment.duration) / vts
        let period = Int64((start / Double(state.keyPeriod) + 1e-9).rounded(.down))
        let periodStart = state.streamStart / 1000 + period * state.keyPeriod
        let tdfPolicy = try policy.policy(period: period, start: periodStart)
        let shift = input.video.edit.mediaStart
        var bytes = 0
        var media: [(String, [LiveSample], Int64, Bool)] = [("video", segment.video, segment.start, true)]
        if input.audio != nil { media.append(("audio", segment.audio, segment.audioStart, false)) }
        for (id, samples, decodeTime, isVideo) in media {
            let described = samples.map { s in
                SegmentSample(size: UInt32(s.bytes.count), duration: s.duration, isSync: isVideo ? s.canStartSegment : true,
                              compositionOffset: isVideo ? s.compositionOffset - shift : nil, subsamples: [])
            }
            var clear = try MediaSegment.header(sequenceNumber: UInt32(truncatingIfNeeded: n + 1), decodeTime: UInt64(max(0, decodeTime)),
                                                samples: described, isVideo: isVideo, protected: false)
            for s in samples { clear += s.bytes }
            let archive: Data
            do { archive = try TDF.encrypt(clear, options: encrypt(tdfPolicy, isVideo ? "video/mp4" : "audio/mp4")) } catch {
                throw PackagerError(.cryptoFailure, "\(id) segment \(n) could not be written as a TDF: \(error.reason)")
            }
            try Self.write(archive, to: Self.path(directory, TDFHLSPackager.segmentName(id, n)))
            bytes += archive.count
        }

        let discontinuity = firstOfRun && resumed
        firstOfRun = false
        let previous = state.segments.last?.discontinuities ?? 0
        state.segments.append(LiveState.Segment(sequence: n, duration: duration, start: start,
                                                programDateTime: Self.programDateTime(state.streamStart, plus: start),
                                                period: period, periodStart: periodStart, discontinuity: discontinuity,
                                                discontinuities: previous + (discontinuity ? 1 : 0), initEpoch: state.initEpoch))
        state.nextSequence = n + 1
        state.videoEnd = segment.start + segment.duration
        state.audioEnd = audioEnd
        state.targetDuration = max(state.targetDuration, HLSFPSv2.targetDuration(for: [duration]))
        let kept = windowRule.keptCount(state.segments.map(\.duration))
        let leaving = state.segments.dropLast(kept)
        state.segments.removeFirst(leaving.count)
        try state.save(in: directory)
        try writePlaylists()
        if !FileManager.default.fileExists(atPath: Self.path(directory, "master.m3u8")) {
            let video = try VideoAttributes(input.video, frameRate: Double(segment.video.count) / max(duration, 1e-6))
            let bandwidth = Int((Double(bytes * 8) / max(duration, 1e-3)).rounded(.up))
            let language = FPSv2Playlists.bcp47(input.audio?.language ?? "und")
            let master = try LivePlaylists.master(video: video, bandwidth: bandwidth,
                                                  audio: input.audioChannels.map { (language, $0) })
            try Self.write(master, to: Self.path(directory, "master.m3u8"))
        }
        for old in leaving {
            for id in components { unlink(Self.path(directory, TDFHLSPackager.segmentName(id, old.sequence))) }
        }
        let epochs = Set(state.segments.map(\.initEpoch) + [state.initEpoch])
        for epoch in Set(leaving.map(\.initEpoch)).subtracting(epochs) {
            for id in components { unlink(Self.path(directory, LiveState.initName(id, epoch: epoch))) }
        }
        written.append(n)
        if periods.last != period { periods.append(period) }
        say(String(format: "segment %d: %.3f s at %.3f s, key period %lld", n, duration, start, period))
    }

    private func writePlaylists() throws(PackagerError) {
        let listed = Array(state.segments.suffix(windowRule.listedCount(state.segments.map(\.duration))))
        for id in components {
            let data = try LivePlaylists.media(id: id, segments: listed, targetDuration: state.targetDuration, ended: state.ended)
            try Self.write(data, to: Self.path(directory, "\(id).m3u8"))
        }
    }

    // MARK: Files

    /// Creates the directory when absent; one without a live state must hold no playlist.
    static func prepareDirectory(_ output: String) throws(PackagerError) -> String {
        var path = output
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw PackagerError(.io, "the output '\(output)' exists and is not a directory") }
        } else {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw PackagerError(.io, "the output directory '\(output)' could not be created")
            }
        }
        if !FileManager.default.fileExists(atPath: LiveState.path(in: path)) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            if names.contains(where: { $0.hasSuffix(".m3u8") }) {
                throw PackagerError(.io, "'\(output)' holds playlists but no \(LiveState.fileName); give an empty directory or one a live packager wrote")
            }
        }
        return path
    }

    static func path(_ directory: String, _ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    static func write(_ data: Data, to path: String) throws(PackagerError) {
        do { try AtomicFileWriter.write(data, to: path) } catch {
            throw PackagerError(.io, "'\(path)' could not be written: \(error.reason)")
        }
    }

    static func rescale(_ value: Int64, from: UInt32, to: UInt32) -> Int64 {
        from == to || from == 0 ? value : Int64((Double(value) * Double(to) / Double(from)).rounded())
    }

    /// RFC 3339 with milliseconds, UTC: the stream's start plus `seconds`.
    static func programDateTime(_ startMilliseconds: Int64, plus seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(startMilliseconds) / 1000 + seconds))
    }
}
