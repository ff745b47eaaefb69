import Foundation
import MediaDRMCENC
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMMP4
import MediaDRMMedia
import MediaDRMTDF

/// Writes cmaf packages (docs/formats.md, "cmaf"): what Shaka Packager writes with
/// `--protection_scheme cbcs` for the same renditions, so any CMAF player can play it with a key
/// system's help. Per rendition a CMAF init (`sinf`/`schm cbcs`/`tenc` with the key ID and the
/// constant IV, and the W3C common `pssh` of every key ID) and media segments in `<id>/`, one
/// content key for every video rendition (or, with `keyPerResolution`, one per resolution class:
/// `VideoResolutionClass`) and one for every audio rendition, encrypted with the
/// one `cbcs` sample walk fps-v2 uses; HLS (FairPlay and ClearKey `EXT-X-KEY`s), a static DASH
/// MPD, and `manifest.json`: the keys wrapped to the KAS under the package's policy, in the
/// fps-v2 manifest's shape so the KAS's media key requests serve either.
public enum CMAFPackager {
    public static let profile = "cmaf"
    /// `manifest.json`'s `meta.profileVersion`.
    public static let profileVersion = 1
    public static let manifestName = "manifest.json"
    public static let masterName = "master.m3u8"
    public static let mpdName = "manifest.mpd"
    /// Segments a rendition may have; bounded like tdf-hls by the playlist size only.
    public static let maximumSegments = TDFHLSPackager.maximumSegments
    static let fairPlayKeyFormat = "com.apple.streamingkeydelivery"

    /// Version 6 media playlists (`EXT-X-MAP` outside I-frame playlists, RFC 8216 §7), no profile
    /// marker: a cmaf package is ordinary HLS.
    static let playlists = StreamPlaylists(mediaVersion: 6)

    public static func initName(_ id: String) -> String { "\(id)/init.mp4" }
    /// Segment `n` from 0 is file `<n + 1>`: `$Number$` starts at 1, as Shaka Packager's do.
    public static func segmentName(_ id: String, _ n: Int, fileExtension: String = "m4s") -> String { "\(id)/\(n + 1).\(fileExtension)" }
    static func segmentTemplate(_ id: String, fileExtension: String = "m4s") -> String { "\(id)/$Number$.\(fileExtension)" }

    /// Several video renditions (each input a variant, or `ladder`'s rungs), the sound of the
    /// inputs and of `audio` as audio renditions, `subtitles` as clear WebVTT renditions.
    /// - Parameter keyPerResolution: key the video renditions per resolution class (SD, HD, UHD1,
    ///   UHD2) instead of with one key; each class present is a video component `video-<class>`.
    public static func package(inputs: [String], audio audioInputs: [AudioInput] = [], ladder: BitrateLadder? = nil,
                               subtitles: [SubtitleInput] = [], keyPerResolution: Bool = false, output: String,
                               options: PackageOptions) throws(PackagerError) -> PackageSummary {
        let say = options.progress ?? { _ in }
        let rsaKey = try options.fpsV2KeyService(profile: profile)
        let policyJSON = try options.requiredPolicy(profile: profile)
        if options.allowZIP64 { throw PackagerError(.invalidArgument, "--zip64 applies to fps-v2 archives, not to cmaf") }
        try options.media?.validateAsPackagerFlags()
        let uuid = try PackagePolicy.freshUUID()
        let prepared = try PackagePolicy.prepare(policyJSON, uuid: uuid, media: options.media,
                                                 classification: options.classification, requireClassification: false)
        try options.checkSegmentDuration()

        let renditions = try LadderRenditions(inputs: inputs, audio: audioInputs, ladder: ladder, segmentDuration: options.segmentDuration,
                                              ffmpegPath: options.ffmpegPath, say: say)
        defer { renditions.remove() }
        let packagingStarted = Date()
        let sources = try TDFHLSSources(inputs: renditions.videoInputs, audioInputs: renditions.audioInputs,
                                        segmentDuration: options.segmentDuration, ffmpegPath: options.ffmpegPath,
                                        maximumSegments: maximumSegments, protected: true, say: say)
        defer { sources.removeScratch() }

        // One key for every video rendition (the fps-v2 components), or one per resolution class
        // present; one for every audio rendition.
        let videoComponent: [String: String] = Dictionary(uniqueKeysWithValues: sources.variants.map { variant in
            let size = variant.attributes.resolution
            return (variant.id, keyPerResolution ? VideoResolutionClass(width: size.width, height: size.height).componentID
                                                 : MediaComponentKind.video.id)
        })
        let videoIDs = keyPerResolution
            ? VideoResolutionClass.allCases.map(\.componentID).filter { Set(videoComponent.values).contains($0) }
            : [MediaComponentKind.video.id]
        let kinds: [(id: String, kind: MediaComponentKind)] = videoIDs.map { ($0, .video) }
            + (sources.audio.isEmpty ? [] : [(MediaComponentKind.audio.id, .audio)])
        let keys = try PackageKeys(componentIDs: kinds.map(\.id))
        var componentKeys: [FPSv2Manifest.ComponentKey] = []
        for (kind, component) in zip(kinds, keys.components) {
            do { componentKeys.append(try FPSv2Manifest.ComponentKey(id: kind.id, kind: kind.kind, key: component.key, wrappingTo: rsaKey)) } catch {
                throw PackagerError(.cryptoFailure, "wrapping the \(component.id) key failed: \(error.reason)")
            }
        }
        let pssh = CommonProtectionSystem.header(keyIDs: keys.components.map(\.keyID))
        let psshBytes = try MediaSegment.bytes(of: pssh)

        let out = try StreamPackageOutput(output: output, renditions: renditions, sources: sources,
                                          segmentDuration: options.segmentDuration)
        do throws(PackagerError) {
            let add = out.add
            /// Writes one rendition's init, segments and media playlist; returns its bit rates.
            func write(_ id: String, _ stream: ComponentStream, _ plan: SegmentPlan, _ componentID: String) throws(PackagerError) -> HLSBitRate {
                guard let component = keys[componentID] else { throw PackagerError(.cryptoFailure, "the \(componentID) key is missing") }
                let isVideo = stream.kind == .video
                let initBytes = isVideo
                    ? try InitSegment.video(stream.track, keyID: component.keyID, constantIV: keys.iv, systems: [pssh])
                    : try InitSegment.audio(stream.track, keyID: component.keyID, constantIV: keys.iv, systems: [pssh])
                try add(initName(id), initBytes)
                let cipher: CBCSSampleCipher
                do { cipher = try CBCSSampleCipher(key: component.key, constantIV: keys.iv, pattern: isVideo ? .video : .fullSample) } catch {
                    throw PackagerError(.cryptoFailure, "the \(id) cipher could not be created")
                }
                var sizes: [Int] = []
                for (n, segment) in plan.segments.enumerated() {
                    let bytes = try stream.bytes(segment: segment, index: n, cipher: cipher, sharedDuration: true)
                    try add(segmentName(id, n), bytes)
                    sizes.append(bytes.count)
                    if plan.segments.count >= 20, n % 10 == 0 { say("  \(id): segment \(n + 1) of \(plan.segments.count)") }
                }
                let rate = HLSBitRate(sizes: sizes, durations: stream.mediaDurations(plan),
                                      targetDuration: HLSFPSv2.targetDuration(for: plan.durations))
                let playlist = try playlists.media(id: id, uris: plan.segments.indices.map { segmentName(id, $0) }, durations: plan.durations,
                                                   map: initName(id), keys: try hlsKeys(componentID: componentID, uuid: uuid, keyID: component.keyID, iv: keys.iv))
                try add("\(id).m3u8", Array(playlist))
                out.components.append(PackageSummary.Component(id: id, codec: "", segments: sizes.count, bytes: sizes.reduce(initBytes.count, +),
                                                           peakBitRate: rate.peak, averageBitRate: rate.average))
                return rate
            }
            var videoRates: [HLSBitRate] = []
            for variant in sources.variants {
                videoRates.append(try write(variant.id, variant.stream, variant.plan, videoComponent[variant.id] ?? MediaComponentKind.video.id))
                out.components[out.components.count - 1].codec = variant.attributes.codec
            }
            var audioRates: [HLSBitRate] = []
            for rendition in sources.audio {
                audioRates.append(try write(rendition.id, rendition.stream, rendition.plan, MediaComponentKind.audio.id))
                out.components[out.components.count - 1].codec = StreamPlaylists.audioCodec
            }
            let timeline = sources.variants[0].plan
            let subtitleRenditions = try SubtitleRenditions.write(
                subtitles, boundaries: timeline.segments.map(\.start) + [timeline.segments.last?.end ?? 0],
                timescale: timeline.videoTimescale, durations: timeline.durations, protect: nil, playlists: playlists,
                segmentName: { id, n, fileExtension in segmentName(id, n, fileExtension: fileExtension) }, add: add)
            try add(masterName, Array(try playlists.master(sources: sources, videoRates: videoRates, audioRates: audioRates,
                                                            subtitles: subtitleRenditions)))
            let sets = adaptationSets(sources: sources, videoRates: videoRates, audioRates: audioRates, subtitles: subtitleRenditions,
                                      keys: keys, videoComponent: videoComponent, videoIDs: videoIDs)
            try add(mpdName, Array(try DASHManifest.document(duration: timeline.totalDuration, sets: sets, pssh: psshBytes)))
            try add(manifestName, Array(try manifest(policy: prepared, keys: componentKeys, packageKeys: keys, sources: sources,
                                                     videoComponent: videoComponent, options: options)))
            try out.commit()
        } catch {
            out.discard()
            throw error
        }
        say("wrote \(output)")
        return out.summary(profile: profile, policyUUID: uuid, sources: sources, renditions: renditions, packagingStarted: packagingStarted)
    }

    /// The `EXT-X-KEY`s of a media playlist: FairPlay's `skd://<policy uuid>/<component id>` (the
    /// fps-v2 URI, so a FairPlay key delegate asks the KAS for that component; `video-hd` and the
    /// like under `--key-per-resolution`) and ClearKey's,
    /// whose URI is the key ID as a `data:` URI (hls.js takes the key ID from its bytes). Both
    /// carry the constant IV of the `tenc`.
    static func hlsKeys(componentID: String, uuid: String, keyID: [UInt8], iv: [UInt8]) throws(PackagerError) -> [HLSKey] {
        guard let fairPlayURI = SKDKeyURI(policyUUID: uuid, componentID: componentID) else {
            throw PackagerError(.invalidArgument, "'\(componentID)' is not a component a key URI can name")
        }
        return [
            HLSKey(method: .sampleAES, uri: fairPlayURI.text, iv: Data(iv),
                   keyFormat: fairPlayKeyFormat, keyFormatVersions: "1"),
            HLSKey.clearKey(keyID: keyID, iv: Data(iv)),
        ]
    }

    /// The MPD's adaptation sets: the video variants of each key in one (one `cenc:default_KID`
    /// per set, as DASH-IF IOP 4.3 requires), each audio language in
    /// its own, each subtitle language in its own (clear `text/vtt` segments, the video's timeline).
    static func adaptationSets(sources: TDFHLSSources, videoRates: [HLSBitRate], audioRates: [HLSBitRate],
                               subtitles: [HLSRendition], keys: PackageKeys, videoComponent: [String: String],
                               videoIDs: [String]) -> [DASHManifest.AdaptationSet] {
        func timeline(_ plan: SegmentPlan, _ stream: ComponentStream) -> [(start: Int64, duration: Int64)] {
            plan.segments.map { segment in
                if stream.kind == .video { return (segment.start, segment.end - segment.start) }
                return (Int64(segment.audioDecodeTime), segment.audio.reduce(Int64(0)) { $0 + Int64(stream.track.samples.durations[$1]) })
            }
        }
        var sets: [DASHManifest.AdaptationSet] = []
        let video = zip(sources.variants, videoRates).map { variant, rate in
            DASHManifest.Representation(
                id: variant.id, bandwidth: rate.peak, codecs: variant.attributes.codec,
                attributes: [("width", String(variant.attributes.resolution.width)), ("height", String(variant.attributes.resolution.height)),
                             ("frameRate", frameRate(variant.stream.track))],
                initialization: initName(variant.id), media: segmentTemplate(variant.id), timescale: variant.stream.track.timescale,
                timeline: timeline(variant.plan, variant.stream), channels: nil)
        }
        for componentID in videoIDs {
            let members = zip(sources.variants, video).filter { videoComponent[$0.0.id] == componentID }.map(\.1)
            sets.append(DASHManifest.AdaptationSet(contentType: "video", mimeType: "video/mp4", language: nil, keyID: keys[componentID]?.keyID,
                                                   representations: members))
        }
        var languages: [String] = []
        for audio in sources.audio where !languages.contains(audio.language) { languages.append(audio.language) }
        for language in languages {
            let members = zip(sources.audio, audioRates).filter { $0.0.language == language }.map { audio, rate in
                DASHManifest.Representation(
                    id: audio.id, bandwidth: rate.peak, codecs: StreamPlaylists.audioCodec,
                    // An AAC track's media timescale is its sampling rate (ISO/IEC 14496-14 practice, and what
                    // every encoder the packager accepts writes).
                    attributes: [("audioSamplingRate", String(audio.stream.track.timescale))],
                    initialization: initName(audio.id), media: segmentTemplate(audio.id), timescale: audio.stream.track.timescale,
                    timeline: timeline(audio.plan, audio.stream), channels: audio.channels)
            }
            sets.append(DASHManifest.AdaptationSet(contentType: "audio", mimeType: "audio/mp4", language: language,
                                                   keyID: keys[MediaComponentKind.audio.id]?.keyID, representations: members))
        }
        let plan = sources.variants[0].plan
        for subtitle in subtitles {
            let id = String((subtitle.uri ?? "").dropLast(".m3u8".count))
            let text = DASHManifest.Representation(
                id: id, bandwidth: 256, codecs: nil, attributes: [], initialization: nil, media: segmentTemplate(id, fileExtension: "vtt"),
                timescale: plan.videoTimescale, timeline: plan.segments.map { ($0.start, $0.end - $0.start) }, channels: nil)
            sets.append(DASHManifest.AdaptationSet(contentType: "text", mimeType: "text/vtt", language: subtitle.language, keyID: nil,
                                                   representations: [text]))
        }
        return sets
    }

    /// `frameRate` as DASH writes it (`FrameRateType`: an integer or a ratio): samples per
    /// decode duration, in the track's timescale.
    static func frameRate(_ track: SourceTrack) -> String {
        let samples = track.samples
        let count = Int64(samples.count), ticks = Int64(samples.decodeEnd)
        guard count > 0, ticks > 0 else { return "0" }
        var (a, b) = (count * Int64(track.timescale), ticks)
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        (a, b) = (a / x, b / x)
        return b == 1 ? String(a) : "\(a)/\(b)"
    }

    /// `manifest.json`: the fps-v2 manifest model (`FPSv2Manifest.make`: one `wrapped` key
    /// access per component under the policy with `arkavo:components`, `method.iv` the constant
    /// IV) with `meta` naming the profile, each component's key ID and its renditions, and
    /// `payload` the master playlist.
    static func manifest(policy: Data, keys componentKeys: [FPSv2Manifest.ComponentKey], packageKeys: PackageKeys,
                         sources: TDFHLSSources, videoComponent: [String: String], options: PackageOptions) throws(PackagerError) -> Data {
        var manifest: FPSv2Manifest
        do {
            manifest = try FPSv2Manifest.make(policy: policy, components: componentKeys, iv: packageKeys.iv,
                                              keyServiceURL: options.kasURL, kid: options.kasKID, layout: .videoClasses)
        } catch {
            throw PackagerError(.invalidPolicy, "the manifest could not be made: \(error.reason)")
        }
        manifest.payload = JSONObject([("type", .string("reference")), ("url", .string(masterName)), ("protocol", .string("directory")),
                                       ("mimeType", .string("application/vnd.apple.mpegurl")), ("isEncrypted", .bool(true))])
        func renditionIDs(_ componentID: String) -> [String] {
            componentID == MediaComponentKind.audio.id ? sources.audio.map(\.id)
                : sources.variants.map(\.id).filter { videoComponent[$0] == componentID }
        }
        let keyList: [JSONValue] = componentKeys.compactMap { component in
            guard let keyID = packageKeys[component.id]?.keyID else { return nil }
            return .object(JSONObject([("component", .string(component.id)), ("kid", .string(CanonicalUUID.text(keyID) ?? "")),
                                       ("renditions", .array(renditionIDs(component.id).map { .string($0) }))]))
        }
        manifest.meta = .object(JSONObject([
            ("profile", .string(profile)), ("profileVersion", .number(JSONNumber(profileVersion))), ("scheme", .string("cbcs")),
            ("keys", .array(keyList)), ("hls", .string(masterName)), ("dash", .string(mpdName)),
        ]))
        return manifest.jsonData()
    }
}
