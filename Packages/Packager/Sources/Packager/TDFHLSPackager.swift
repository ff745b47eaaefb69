// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMFPSv2
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMTDF

/// Writes tdf-hls streams: clear CMAF init segments, every media segment its own Standard TDF
/// archive (`<id>-segment<N>.tdf`: a fresh AES-256-GCM payload key per segment, wrapped to the
/// KAS, the same policy for all), listed in ordinary RFC 8216 playlists. The layout is in
/// docs/formats.md ("tdf-hls").
///
/// A reader knows the profile from the master's `#EXT-X-SESSION-DATA` with DATA-ID
/// `net.arkavo.profile` and VALUE `tdf-hls`, and from each media playlist's
/// `#EXT-X-DEFINE` with NAME `net-arkavo-profile` and the same VALUE (an EXT-X-DEFINE name allows
/// no dot). The playlists carry no `EXT-X-KEY`: HLS does not describe a TDF segment, and a
/// player that does not know the profile fails on the `.tdf` segments instead of playing.
public enum TDFHLSPackager {
    public static let profile = "tdf-hls"
    public static let sessionDataID = "net.arkavo.profile"
    public static let defineName = "net-arkavo-profile"
    /// Segments a stream may have; tdf-hls has no ZIP container, so only the playlist size bounds it.
    public static let maximumSegments = 100_000

    /// One input: its video, and its sound as audio renditions.
    public static func package(input: String, output: String, options: PackageOptions) throws(PackagerError) -> PackageSummary {
        try package(inputs: [input], output: output, options: options)
    }

    /// Several video renditions (each input a variant, or `ladder`'s rungs made with ffmpeg from
    /// the one input), the sound of the inputs and of `audio` as audio renditions, and one
    /// master playlist over all of them (docs/formats.md, "tdf-hls").
    ///
    /// Each of `subtitles` becomes a subtitle rendition (`SubtitleRenditions`), clear or, with
    /// `protectSubtitles`, every segment a Standard TDF.
    public static func package(inputs: [String], audio audioInputs: [AudioInput] = [], ladder: BitrateLadder? = nil,
                               subtitles: [SubtitleInput] = [], protectSubtitles: Bool = false,
                               output: String, options: PackageOptions) throws(PackagerError) -> PackageSummary {
        let say = options.progress ?? { _ in }
        let kasKey: KASPublicKey
        do { kasKey = try KASPublicKey(pemRepresentation: options.kasPublicKeyPEM) } catch {
            throw PackagerError(.invalidArgument, "the KAS public key is not a usable PEM key: \(error.reason)")
        }
        guard let kasURL = URL(string: options.kasURL), let scheme = kasURL.scheme?.lowercased(),
              scheme == "https" || scheme == "http", kasURL.host != nil else {
            throw PackagerError(.invalidArgument, "the KAS URL must be an absolute http(s) URL")
        }
        guard let policyJSON = options.policyJSON else {
            throw PackagerError(.invalidPolicy, "tdf-hls needs a policy with body.dataAttributes (--policy FILE)")
        }
        if options.allowZIP64 { throw PackagerError(.invalidArgument, "--zip64 applies to fps-v2 archives, not to tdf-hls") }
        try options.media?.validateAsPackagerFlags()
        let uuid = try PackagePolicy.freshUUID()
        let prepared = try PackagePolicy.prepare(policyJSON, uuid: uuid, media: options.media,
                                                 classification: options.classification, requireClassification: false)
        let policy: TDFPolicy
        do { policy = try TDFPolicy(parsing: prepared) } catch {
            throw PackagerError(.invalidPolicy, "the policy is not a usable TDF policy: \(error.reason)")
        }
        guard options.segmentDuration > 0, options.segmentDuration.isFinite, options.segmentDuration <= 3600 else {
            throw PackagerError(.invalidArgument, "the segment duration must be between 0 and 3600 seconds")
        }

        var videoInputs = inputs
        var audioInputs = audioInputs
        var ladderWarnings: [String] = []
        var ladderSeconds: Double?
        var rungDirectory: PrivateTemporaryDirectory?
        defer { rungDirectory?.remove() }
        if let ladder {
            guard inputs.count == 1, let master = inputs.first else {
                throw PackagerError(.invalidArgument, "--ladder makes the renditions from one master; give exactly one input")
            }
            let ffmpeg = try AudioReencoder.requireFFmpeg(options.ffmpegPath, for: "--ladder makes its rungs with libx264")
            // A rung taller than the master would only be upscaled: more bits, no more picture.
            let masterMovie = try SourceMovie(path: master)
            let masterHeight = Int(try SourceSelection(movie: masterMovie).video.videoEntry?.height ?? 0)
            var ladder = ladder
            let taller = ladder.rungs.filter { $0.height > masterHeight }
            ladder.rungs.removeAll { $0.height > masterHeight }
            guard !ladder.rungs.isEmpty else {
                throw PackagerError(.invalidArgument, "every --ladder rung is taller than the master (\(masterHeight) lines); name rungs of at most its height")
            }
            if !taller.isEmpty {
                ladderWarnings.append("--ladder: \(taller.map(\.name).joined(separator: ", ")) left out: taller than the master (\(masterHeight) lines)")
            }
            let directory = try PrivateTemporaryDirectory(label: "packager-ladder")
            rungDirectory = directory
            let started = Date()
            videoInputs = try ladder.encode(input: master, segmentDuration: options.segmentDuration, ffmpeg: ffmpeg,
                                            directory: directory.path, say: say)
            ladderSeconds = Date().timeIntervalSince(started)
            say(String(format: "ffmpeg made %d rungs in %.2f s", videoInputs.count, ladderSeconds ?? 0))
            // The rungs are video only: the master's own sound tracks become the audio renditions.
            if !TDFHLSSources.soundTracks(masterMovie).isEmpty {
                audioInputs.insert(AudioInput(path: master), at: 0)
            }
        }
        let packagingStarted = Date()
        let sources = try TDFHLSSources(inputs: videoInputs, audioInputs: audioInputs, segmentDuration: options.segmentDuration,
                                        ffmpegPath: options.ffmpegPath, maximumSegments: maximumSegments, say: say)
        defer { sources.removeScratch() }
        let sink = try DirectoryPackageSink(path: output)
        var entries: [(name: String, size: Int)] = []
        var components: [PackageSummary.Component] = []
        var warnings = ladderWarnings + sources.reencodeReasons.map { "re-encoded to AAC-LC: \($0)" }
        if sources.variants.count > 1, options.segmentDuration < 2 {
            warnings.append("segments shorter than 2 s make variant switches frequent; 6 s is usual (Apple HLS authoring)")
        }
        do throws(PackagerError) {
            func add(_ name: String, _ bytes: [UInt8]) throws(PackagerError) {
                try sink.add(name: name, bytes: bytes)
                entries.append((name, bytes.count))
            }
            func write(_ id: String, _ stream: ComponentStream, _ plan: SegmentPlan) throws(PackagerError) -> HLSBitRate {
                let options = TDFEncryptOptions(kasURL: options.kasURL, kasPublicKey: kasKey, kid: options.kasKID, policy: policy,
                                                mimeType: stream.kind == .video ? "video/mp4" : "audio/mp4")
                let initBytes = stream.kind == .video ? try InitSegment.clearVideo(stream.track) : try InitSegment.clearAudio(stream.track)
                try add("\(id)-init.mp4", initBytes)
                var sizes: [Int] = []
                for (n, segment) in plan.segments.enumerated() {
                    let clear = try stream.bytes(segment: segment, index: n, cipher: nil, protected: false)
                    let archive: Data
                    do { archive = try TDF.encrypt(clear, options: options) } catch {
                        throw PackagerError(.cryptoFailure, "\(id) segment \(n) could not be written as a TDF: \(error.reason)")
                    }
                    try add(segmentName(id, n), Array(archive))
                    sizes.append(archive.count)
                    if plan.segments.count >= 20, n % 10 == 0 { say("  \(id): segment \(n + 1) of \(plan.segments.count)") }
                }
                let rate = HLSBitRate(sizes: sizes, durations: plan.durations)
                try add("\(id).m3u8", Array(try mediaPlaylist(component: id, durations: plan.durations)))
                components.append(PackageSummary.Component(id: id, codec: "", segments: sizes.count,
                                                           bytes: sizes.reduce(initBytes.count, +),
                                                           peakBitRate: rate.peak, averageBitRate: rate.average))
                return rate
            }
            var videoRates: [HLSBitRate] = []
            for variant in sources.variants {
                videoRates.append(try write(variant.id, variant.stream, variant.plan))
                components[components.count - 1].codec = variant.attributes.codec
            }
            var audioRates: [HLSBitRate] = []
            for rendition in sources.audio {
                audioRates.append(try write(rendition.id, rendition.stream, rendition.plan))
                components[components.count - 1].codec = audioCodec
            }
            let timeline = sources.variants[0].plan
            let subtitleOptions = TDFEncryptOptions(kasURL: options.kasURL, kasPublicKey: kasKey, kid: options.kasKID, policy: policy,
                                                    mimeType: SubtitleRenditions.mimeType)
            let subtitleRenditions = try SubtitleRenditions.write(
                subtitles, boundaries: timeline.segments.map(\.start) + [timeline.segments.last?.end ?? 0],
                timescale: timeline.videoTimescale, durations: timeline.durations, protect: protectSubtitles ? subtitleOptions : nil, add: add)
            let master = try masterPlaylist(sources: sources, videoRates: videoRates, audioRates: audioRates, subtitles: subtitleRenditions)
            try add("master.m3u8", Array(master))
            _ = try sink.finish()
            try sink.commit()
        } catch {
            sink.discard()
            throw error
        }
        say("wrote \(output)")
        let plan = sources.variants[0].plan
        var summary = PackageSummary(output: output, profile: profile, isDirectory: true, policyUUID: uuid, components: components,
                                     segmentDurations: plan.durations, duration: plan.durations.reduce(0, +),
                                     bytes: UInt64(entries.reduce(0) { $0 + $1.size }), entries: entries.map(\.name),
                                     audioReencodeReason: sources.reencodeReasons.isEmpty ? nil : sources.reencodeReasons.joined(separator: "; "),
                                     admission: nil, warnings: warnings)
        summary.ladderEncodeSeconds = ladderSeconds
        summary.packagingSeconds = Date().timeIntervalSince(packagingStarted)
        return summary
    }

    /// RFC 6381 codec of every audio rendition: each is AAC-LC, as it is or re-encoded.
    static let audioCodec = "mp4a.40.2"
    /// The GROUP-ID of the audio renditions; every variant names it.
    static let audioGroup = "audio"

    public static func segmentName(_ id: String, _ n: Int) -> String { "\(id)-segment\(n).tdf" }

    /// `<id>.m3u8`: VOD, the clear init as the map, one `.tdf` URI per segment, the profile
    /// marker as an `EXT-X-DEFINE` (version 8, RFC 8216bis).
    static func mediaPlaylist(component id: String, durations: [Double]) throws(PackagerError) -> Data {
        try mediaPlaylist(id: id, uris: durations.indices.map { segmentName(id, $0) }, durations: durations, map: "\(id)-init.mp4")
    }

    /// A VOD media playlist of `uris` with their durations, the profile marker and, when given,
    /// the map (a subtitle rendition has none).
    static func mediaPlaylist(id: String, uris: [String], durations: [Double], map: String?) throws(PackagerError) -> Data {
        var segments = zip(uris, durations).map { HLSSegment(duration: $1, uri: $0) }
        if !segments.isEmpty {
            segments[0].otherTags = [HLSTag(name: "EXT-X-DEFINE", value: "NAME=\"\(defineName)\",VALUE=\"\(profile)\"")]
            segments[0].map = map.map { HLSMap(uri: $0) }
        }
        let playlist = HLSMediaPlaylist(version: 8, targetDuration: HLSFPSv2.targetDuration(for: durations), mediaSequence: 0,
                                        playlistType: .vod, independentSegments: true, segments: segments, endList: true)
        do {
            let data = try HLSWriter.data(.media(playlist))
            _ = try HLSParser.parseMedia(data, mode: .lenient)
            return data
        } catch {
            throw PackagerError(.malformedInput, "the \(id) playlist could not be written: \(error.reason)")
        }
    }

    /// `master.m3u8` (RFC 8216 §4.3.4): the audio renditions (the first DEFAULT, each
    /// AUTOSELECT, LANGUAGE, NAME from the language, CHANNELS), then a variant per video rendition
    /// in input order with BANDWIDTH and AVERAGE-BANDWIDTH per §4.3.4.2 over the `.tdf` bytes
    /// (its own rate plus the audio group's largest), CODECS, RESOLUTION, FRAME-RATE and the
    /// group; the profile's `EXT-X-SESSION-DATA`. Checked by our parser and the rendition-group
    /// rules before it is written.
    static func masterPlaylist(sources: TDFHLSSources, videoRates: [HLSBitRate], audioRates: [HLSBitRate],
                               subtitles: [HLSRendition] = []) throws(PackagerError) -> Data {
        var renditions: [HLSRendition] = []
        var names = Set<String>()
        for (n, audio) in sources.audio.enumerated() {
            var name = LanguageTag.displayName(audio.language)
            if names.contains(name) { name += " \(n + 1)" }
            names.insert(name)
            renditions.append(HLSRendition(type: .audio, groupID: audioGroup, name: name, language: audio.language,
                                           isDefault: n == 0, autoselect: true, channels: String(audio.channels), uri: "\(audio.id).m3u8"))
        }
        let hasAudio = !sources.audio.isEmpty
        let variants = zip(sources.variants, videoRates).map { variant, rate in
            let total = HLSBitRate.variant(rate, groups: [audioRates])
            return HLSVariant(uri: "\(variant.id).m3u8", bandwidth: total.peak, averageBandwidth: total.average,
                              codecs: [variant.attributes.codec] + (hasAudio ? [audioCodec] : []),
                              resolution: variant.attributes.resolution, frameRate: variant.attributes.frameRate,
                              audio: hasAudio ? audioGroup : nil, subtitles: subtitles.first?.groupID)
        }
        renditions += subtitles
        let master = HLSMasterPlaylist(version: 7, independentSegments: true, renditions: renditions, variants: variants,
                                       otherTags: [HLSTag(name: "EXT-X-SESSION-DATA", value: "DATA-ID=\"\(sessionDataID)\",VALUE=\"\(profile)\"")])
        do {
            try master.checkRenditionGroups()
            let data = try HLSWriter.data(.master(master))
            try HLSParser.parseMaster(data, mode: .lenient).checkRenditionGroups()
            return data
        } catch {
            throw PackagerError(.malformedInput, "the master playlist could not be written: \(error.reason)")
        }
    }
}
