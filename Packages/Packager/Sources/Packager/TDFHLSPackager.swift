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

    public static func package(input: String, output: String, options: PackageOptions) throws(PackagerError) -> PackageSummary {
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

        let source = try PreparedSource(input: input, segmentDuration: options.segmentDuration, ffmpegPath: options.ffmpegPath,
                                        maximumSegments: maximumSegments, protected: false, allowsHEVC: true, say: say)
        defer { source.removeScratch() }
        let plan = source.plan
        let streams = source.streams
        let sink = try DirectoryPackageSink(path: output)
        var entries: [(name: String, size: Int)] = []
        var components: [PackageSummary.Component] = []
        var mediaPlaylists: [Data] = []
        var rates: [BitRates] = []
        var warnings: [String] = []
        if let reason = source.reencodeReason { warnings.append("the audio was mixed and re-encoded to AAC-LC: \(reason)") }
        do throws(PackagerError) {
            func add(_ name: String, _ bytes: [UInt8]) throws(PackagerError) {
                try sink.add(name: name, bytes: bytes)
                entries.append((name, bytes.count))
            }
            for stream in streams {
                let id = stream.kind.rawValue
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
                let rate = BitRates(sizes: sizes, durations: plan.durations)
                rates.append(rate)
                let playlist = try mediaPlaylist(component: id, durations: plan.durations)
                mediaPlaylists.append(playlist)
                try add("\(id).m3u8", Array(playlist))
                components.append(PackageSummary.Component(id: id, codec: "", segments: sizes.count,
                                                           bytes: sizes.reduce(initBytes.count, +),
                                                           peakBitRate: rate.peak, averageBitRate: rate.average))
            }
            let master = try masterPlaylist(source: source, rates: rates)
            try add("master.m3u8", Array(master.data))
            for c in components.indices { components[c].codec = components[c].id == "video" ? master.videoCodec : "mp4a.40.2" }
            _ = try sink.finish()
            try sink.commit()
        } catch {
            sink.discard()
            throw error
        }
        say("wrote \(output)")
        return PackageSummary(output: output, profile: profile, isDirectory: true, policyUUID: uuid, components: components,
                              segmentDurations: plan.durations, duration: plan.durations.reduce(0, +),
                              bytes: UInt64(entries.reduce(0) { $0 + $1.size }), entries: entries.map(\.name),
                              audioReencodeReason: source.reencodeReason, admission: nil, warnings: warnings)
    }

    public static func segmentName(_ id: String, _ n: Int) -> String { "\(id)-segment\(n).tdf" }

    /// `<id>.m3u8`: VOD, the clear init as the map, one `.tdf` URI per segment, the profile
    /// marker as an `EXT-X-DEFINE` (version 8, RFC 8216bis).
    static func mediaPlaylist(component id: String, durations: [Double]) throws(PackagerError) -> Data {
        var segments: [HLSSegment] = []
        for (n, duration) in durations.enumerated() {
            segments.append(HLSSegment(duration: duration, uri: segmentName(id, n)))
        }
        if !segments.isEmpty {
            segments[0].otherTags = [HLSTag(name: "EXT-X-DEFINE", value: "NAME=\"\(defineName)\",VALUE=\"\(profile)\"")]
            segments[0].map = HLSMap(uri: "\(id)-init.mp4")
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

    /// `master.m3u8`: the fps-v2 shape (one variant, one audio rendition) without keys, plus
    /// the profile's `EXT-X-SESSION-DATA`.
    static func masterPlaylist(source: PreparedSource, rates: [BitRates]) throws(PackagerError) -> (data: Data, videoCodec: String) {
        let shape = try FPSv2Playlists.masterShape(plan: source.plan, video: source.selection.video, audio: source.audioTrack,
                                                   audioConfig: source.audioConfig, audioLanguage: source.audioLanguage, rates: rates)
        var master = HLSFPSv2.masterPlaylist(video: shape.video, audio: shape.audio)
        master.otherTags.append(HLSTag(name: "EXT-X-SESSION-DATA", value: "DATA-ID=\"\(sessionDataID)\",VALUE=\"\(profile)\""))
        do {
            let data = try HLSWriter.data(.master(master))
            _ = try HLSParser.parseMaster(data, mode: .lenient)
            return (data, shape.video.codec)
        } catch {
            throw PackagerError(.malformedInput, "the master playlist could not be written: \(error.reason)")
        }
    }
}
