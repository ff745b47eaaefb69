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
        let kasKey = try options.kasPublicKey()
        try options.checkTDFKASURL()
        let policyJSON = try options.requiredPolicy(profile: profile)
        if options.allowZIP64 { throw PackagerError(.invalidArgument, "--zip64 applies to fps-v2 archives, not to tdf-hls") }
        try options.media?.validateAsPackagerFlags()
        let uuid = try PackagePolicy.freshUUID()
        let prepared = try PackagePolicy.prepare(policyJSON, uuid: uuid, media: options.media,
                                                 classification: options.classification, requireClassification: false)
        let policy: TDFPolicy
        do { policy = try TDFPolicy(parsing: prepared) } catch {
            throw PackagerError(.invalidPolicy, "the policy is not a usable TDF policy: \(error.reason)")
        }
        try options.checkSegmentDuration()

        let renditions = try LadderRenditions(inputs: inputs, audio: audioInputs, ladder: ladder, segmentDuration: options.segmentDuration,
                                              ffmpegPath: options.ffmpegPath, say: say)
        defer { renditions.remove() }
        let packagingStarted = Date()
        let sources = try TDFHLSSources(inputs: renditions.videoInputs, audioInputs: renditions.audioInputs, segmentDuration: options.segmentDuration,
                                        ffmpegPath: options.ffmpegPath, maximumSegments: maximumSegments, say: say)
        defer { sources.removeScratch() }
        let out = try StreamPackageOutput(output: output, renditions: renditions, sources: sources,
                                          segmentDuration: options.segmentDuration)
        do throws(PackagerError) {
            let add = out.add
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
                out.components.append(PackageSummary.Component(id: id, codec: "", segments: sizes.count,
                                                           bytes: sizes.reduce(initBytes.count, +),
                                                           peakBitRate: rate.peak, averageBitRate: rate.average))
                return rate
            }
            var videoRates: [HLSBitRate] = []
            for variant in sources.variants {
                videoRates.append(try write(variant.id, variant.stream, variant.plan))
                out.components[out.components.count - 1].codec = variant.attributes.codec
            }
            var audioRates: [HLSBitRate] = []
            for rendition in sources.audio {
                audioRates.append(try write(rendition.id, rendition.stream, rendition.plan))
                out.components[out.components.count - 1].codec = StreamPlaylists.audioCodec
            }
            let timeline = sources.variants[0].plan
            let subtitleOptions = TDFEncryptOptions(kasURL: options.kasURL, kasPublicKey: kasKey, kid: options.kasKID, policy: policy,
                                                    mimeType: SubtitleRenditions.mimeType)
            let subtitleRenditions = try SubtitleRenditions.write(
                subtitles, boundaries: timeline.segments.map(\.start) + [timeline.segments.last?.end ?? 0],
                timescale: timeline.videoTimescale, durations: timeline.durations, protect: protectSubtitles ? subtitleOptions : nil,
                add: add)
            let master = try playlists.master(sources: sources, videoRates: videoRates, audioRates: audioRates, subtitles: subtitleRenditions)
            try add("master.m3u8", Array(master))
            try out.commit()
        } catch {
            out.discard()
            throw error
        }
        say("wrote \(output)")
        return out.summary(profile: profile, policyUUID: uuid, sources: sources, renditions: renditions, packagingStarted: packagingStarted)
    }

    /// tdf-hls's playlists: version 8 media playlists with the profile's `EXT-X-DEFINE`, the
    /// master with its `EXT-X-SESSION-DATA`, no keys.
    static let playlists = StreamPlaylists(
        mediaVersion: 8,
        mediaTags: [HLSTag(name: "EXT-X-DEFINE", value: "NAME=\"\(defineName)\",VALUE=\"\(profile)\"")],
        masterTags: [HLSTag(name: "EXT-X-SESSION-DATA", value: "DATA-ID=\"\(sessionDataID)\",VALUE=\"\(profile)\"")])

    public static func segmentName(_ id: String, _ n: Int) -> String { "\(id)-segment\(n).tdf" }
    /// `<id>-segment<n>.vtt` (clear) or `.tdf` (`--protect-subtitles`).
    static func subtitleSegmentName(_ id: String, _ n: Int, _ fileExtension: String) -> String { "\(id)-segment\(n).\(fileExtension)" }

    /// `<id>.m3u8`: VOD, the clear init as the map, one `.tdf` URI per segment, the profile
    /// marker as an `EXT-X-DEFINE` (version 8, RFC 8216bis).
    static func mediaPlaylist(component id: String, durations: [Double]) throws(PackagerError) -> Data {
        try playlists.media(id: id, uris: durations.indices.map { segmentName(id, $0) }, durations: durations, map: "\(id)-init.mp4")
    }
}
