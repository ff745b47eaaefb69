import MediaDRMFPSv2
import MediaDRMMedia
import Foundation
import Packager
import MediaDRMToolSupport

enum PackageVerb {
    static let verb = ToolVerb(
        "package",
        summary: "Package an MP4/MOV as an fps-v2 archive (or directory), or one or more as a tdf-hls or cmaf stream directory.",
        discussion: """
            fps-v2 (default): each component (video, and audio when the source has sound) gets its \
            own random 16-byte key, wrapped with RSA-OAEP (SHA-1) to the KAS public key; keys never \
            leave the process in clear. The policy file must have body.dataAttributes and must not \
            have arkavo:components; the packager sets a fresh uuid, adds arkavo:media from the media \
            flags and inserts arkavo:components. fps-v2 also needs the creator's classification \
            (§6.4), in the policy as arkavo:classification or given with --classification. -o names \
            a ZIP file, or a directory when it ends in '/' or is an existing (empty) directory. The \
            written package must pass the reader admission checks (with --kas-url accepted as the \
            key service) before it is moved into place.
            tdf-hls: -o names a directory; clear init segments, every media segment a Standard TDF \
            (a fresh key each, wrapped to the KAS, the same policy) and RFC 8216 playlists. Several \
            inputs are the video variants of one title (a bitrate ladder): their IDR frames must \
            line up, or the first mismatching time is named; --ladder 1080p,720p,... makes the \
            rungs from one master with ffmpeg (libx264, closed GOPs, an IDR every 2 s) first. Every \
            audio track of the inputs (once per language) and of each --audio file becomes an audio \
            rendition with its language; the master playlist lists every variant and rendition. \
            fps-v2 takes one input with at most one audio (§3, §8).
            cmaf: -o names a directory; what Shaka Packager writes with --protection_scheme cbcs: \
            per rendition <id>/init.mp4 (cbcs sinf/tenc and the W3C common pssh) and <id>/1.m4s ..., \
            one key for the video renditions and one for the audio, HLS (FairPlay and ClearKey \
            EXT-X-KEYs) and a static DASH manifest.mpd, and manifest.json with the keys wrapped to \
            the KAS RSA key under the policy (the fps-v2 manifest shape). Takes --ladder, several \
            inputs, --audio and clear --subtitles as tdf-hls does; H.264 or HEVC (hvc1/hev1) video. \
            --key-per-resolution keys the video renditions per resolution class instead (SD up to \
            768x576 pixels, HD up to 1920x1080, UHD1 up to 4096x2160, UHD2 above), each class a \
            component video-sd, video-hd, video-uhd1 or video-uhd2 with its own key.
            Audio that is not one AAC-LC track covering the video (several tracks, another codec, \
            late or short sound, channel configuration 0 or 8-15) is mixed and re-encoded once to \
            AAC-LC with ffmpeg (--ffmpeg, $MEDIADRM_FFMPEG or PATH). Nothing is left at the output \
            path on failure.
            """,
        options: [
            .single("output", short: "o", valueName: "path", help: "The package to write (ZIP file or directory).", required: true),
            .single("kas-url", valueName: "url", help: "The KAS URL written into every key access object.", required: true),
            .single("kas-public-key", valueName: "pem", help: "PEM file of the KAS RSA public key.", required: true),
            .single("kas-kid", valueName: "kid", help: "The KAS key id written as keyAccess kid."),
            .single("policy", valueName: "file", help: "Policy JSON with body.dataAttributes."),
            .single("classification", valueName: "file|json",
                    help: "arkavo:classification, inline JSON or a file: {\"filter\":\"passed\",\"flagged\":[],\"v\":1}."),
            .single("ffmpeg", valueName: "path", help: "ffmpeg used to re-encode audio (default: $MEDIADRM_FFMPEG, then PATH)."),
            .single("profile", valueName: "name", help: "fps-v2 (default), tdf-hls or cmaf."),
            .repeated("audio", valueName: "file[:lang=tag]",
                      help: "tdf-hls: an audio file whose tracks become audio renditions, in BCP 47 language tag (e.g. talk.es.m4a:lang=es)."),
            .repeated("subtitles", valueName: "file:lang=tag",
                      help: "tdf-hls: a WebVTT file that becomes a subtitle rendition in that BCP 47 language (e.g. talk.en.vtt:lang=en)."),
            .flag("key-per-resolution", help: "cmaf: one video key per resolution class (SD, HD, UHD1, UHD2) instead of one for all."),
            .flag("protect-subtitles", help: "tdf-hls: write every subtitle segment as a Standard TDF (default: clear WebVTT)."),
            .single("ladder", valueName: "rungs", help: "tdf-hls: make these video rungs from the one input with ffmpeg (e.g. 1080p,720p,480p,360p)."),
            .single("segment-duration", valueName: "seconds", help: "Target segment duration (default 6)."),
            .single("rental-purchase-window", valueName: "seconds", help: "Rental: time from purchase to first play."),
            .single("rental-playback-window", valueName: "seconds", help: "Rental: time from first play to the end of viewing."),
            .single("max-streams", valueName: "n", help: "Most concurrent playbacks per viewer."),
            .single("allowed-regions", valueName: "A,B", help: "ISO 3166-1 alpha-2 regions where playback is allowed."),
            .single("blocked-regions", valueName: "A,B", help: "ISO 3166-1 alpha-2 regions where playback is refused."),
            .single("hdcp", valueName: "level", help: "none, type0 or type1."),
            .single("min-security-level", valueName: "level", help: "software, baseline or main."),
            .flag("no-virtual-machines", help: "Refuse playback inside virtual machines."),
            .flag("offline", help: "Allow offline licences (downloads; fps-v2 only, docs/offline.md)."),
            .single("offline-license-duration", valueName: "seconds",
                    help: "Offline: a licence's life from issue or renewal (default 30 days)."),
            .single("offline-playback-window", valueName: "seconds",
                    help: "Offline: viewing time from the first offline play (default: until the licence expires)."),
            .single("max-offline-devices", valueName: "n", help: "Offline: devices per viewer holding a licence (default 1)."),
            .flag("zip64", help: "Write a ZIP64 archive (needed over 4 GiB; fps-v2 readers refuse it)."),
            .json,
            .quiet,
        ],
        arguments: [ToolArgument("input", help: "The MP4 or MOV to package (tdf-hls: one per video variant).", variadic: true)],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let inputs = arguments.arguments("input")
        guard let input = inputs.first else { throw UsageError("missing argument <input>") }
        let output = try arguments.requiredValue("output")
        let profile = arguments.value("profile") ?? "fps-v2"
        guard ["fps-v2", "tdf-hls", CMAFPackager.profile].contains(profile) else {
            throw UsageError("invalid value '\(profile)' for '--profile': expected fps-v2, tdf-hls or cmaf")
        }
        if profile == CMAFPackager.profile, arguments.flag("protect-subtitles") {
            throw UsageError("--protect-subtitles makes Standard TDF segments, which cmaf players cannot read; cmaf subtitles are clear WebVTT")
        }
        if profile != CMAFPackager.profile, arguments.flag("key-per-resolution") {
            throw UsageError("--key-per-resolution keys cmaf video renditions per resolution class; \(profile) has its own key rules; use --profile cmaf")
        }
        let audioInputs: [AudioInput]
        let ladder: BitrateLadder?
        let subtitles: [SubtitleInput]
        do {
            subtitles = try arguments.values("subtitles").map { (text) throws(PackagerError) in try SubtitleInput(argument: text) }
            audioInputs = try arguments.values("audio").map { (text) throws(PackagerError) in try AudioInput(argument: text) }
            ladder = try arguments.value("ladder").map { (text) throws(PackagerError) in try BitrateLadder(argument: text) }
        } catch {
            throw UsageError(error.reason)
        }
        if profile == "fps-v2" {
            guard inputs.count == 1 else {
                throw UsageError("fps-v2 has one video variant (draft-arkavo-tdf-fairplay-01 §3); give one input, or --profile tdf-hls for a ladder")
            }
            guard ladder == nil else { throw UsageError("--ladder makes several video variants; fps-v2 has one (§3); use --profile tdf-hls") }
            guard audioInputs.isEmpty else { throw UsageError("--audio adds audio renditions; fps-v2 has at most one audio (§8); use --profile tdf-hls") }
            guard subtitles.isEmpty, !arguments.flag("protect-subtitles") else {
                throw UsageError("--subtitles adds subtitle renditions; fps-v2 has video and audio only (§3); use --profile tdf-hls")
            }
        }
        let pem = try FileInput.readText(try arguments.requiredValue("kas-public-key"), role: "KAS public key")
        var options = PackageOptions(kasURL: try arguments.requiredValue("kas-url"), kasPublicKeyPEM: pem,
                                     kasKID: arguments.value("kas-kid"))
        if let policy = arguments.value("policy") {
            options.policyJSON = try FileInput.read(policy, role: "policy", maxBytes: 1 << 20)
        }
        if let text = arguments.value("classification") {
            let bytes = text.hasPrefix("{") ? Data(text.utf8) : try FileInput.read(text, role: "classification", maxBytes: 64 << 10)
            do { options.classification = try PackagePolicy.classification(parsing: bytes) } catch { throw UsageError(error.reason) }
        }
        options.ffmpegPath = arguments.value("ffmpeg")
        if let text = arguments.value("segment-duration") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600, seconds.isFinite else {
                throw UsageError("invalid value '\(text)' for '--segment-duration': expected seconds from 0 to 3600")
            }
            options.segmentDuration = seconds
        }
        var media = MediaRules()
        if let n = try arguments.integer("rental-purchase-window", in: 1 ... Int(Int32.max)) { media.rentalPurchaseWindowSeconds = Int64(n) }
        if let n = try arguments.integer("rental-playback-window", in: 1 ... Int(Int32.max)) { media.rentalPlaybackWindowSeconds = Int64(n) }
        media.maxConcurrentStreams = try arguments.integer("max-streams", in: 1 ... MediaRules.maxConcurrentStreamsLimit)
        media.allowedRegions = arguments.value("allowed-regions").map(MediaRules.regions)
        media.blockedRegions = arguments.value("blocked-regions").map(MediaRules.regions)
        if let text = arguments.value("hdcp") {
            guard let level = HDCPLevel(rawValue: text) else {
                throw UsageError("invalid value '\(text)' for '--hdcp': expected none, type0 or type1")
            }
            media.hdcp = level
        }
        if let text = arguments.value("min-security-level") {
            guard let level = SecurityLevel(rawValue: text) else {
                throw UsageError("invalid value '\(text)' for '--min-security-level': expected software, baseline or main")
            }
            media.minSecurityLevel = level
        }
        if arguments.flag("no-virtual-machines") { media.allowVirtualMachines = false }
        if arguments.flag("offline") {
            guard profile == "fps-v2" else {
                throw UsageError("--offline needs --profile fps-v2: offline licences carry fps-v2 packages' keys")
            }
            media.offline = true
        }
        if let n = try arguments.integer("offline-license-duration", in: 1 ... Int(Int32.max)) { media.offlineLicenseDurationSeconds = Int64(n) }
        if let n = try arguments.integer("offline-playback-window", in: 1 ... Int(Int32.max)) { media.offlinePlaybackWindowSeconds = Int64(n) }
        media.maxOfflineDevices = try arguments.integer("max-offline-devices", in: 1 ... MediaRules.maxOfflineDevicesLimit)
        do { try media.validateAsPackagerFlags() } catch { throw UsageError(error.reason) }
        options.media = media.isEmpty ? nil : media
        options.allowZIP64 = arguments.flag("zip64")
        options.progress = { line in console.progress(line) }
        for path in inputs + audioInputs.map(\.path) + subtitles.map(\.path) where FileInput.isSameFile(path, output) {
            throw ToolFailure("the output would overwrite the input '\(path)'")
        }

        let summary: PackageSummary
        do {
            switch profile {
            case TDFHLSPackager.profile:
                summary = try TDFHLSPackager.package(inputs: inputs, audio: audioInputs, ladder: ladder, subtitles: subtitles,
                                                     protectSubtitles: arguments.flag("protect-subtitles"), output: output, options: options)
            case CMAFPackager.profile:
                summary = try CMAFPackager.package(inputs: inputs, audio: audioInputs, ladder: ladder, subtitles: subtitles,
                                                   keyPerResolution: arguments.flag("key-per-resolution"), output: output, options: options)
            default:
                summary = try FPSv2Packager.package(input: input, output: output, options: options)
            }
        } catch {
            throw ToolFailure(error.reason)
        }
        for warning in summary.warnings { console.warning(warning) }
        if arguments.flag("json") {
            try console.printJSON(PackageReport(summary))
        } else {
            let format = summary.profile != "fps-v2" ? "\(summary.profile) directory" : summary.isDirectory ? "fps-v2 directory" : "fps-v2 ZIP"
            console.print("wrote \(summary.output) (\(format), \(summary.bytes) bytes)")
            if let report = summary.admission {
                console.print("reader admission: \(report.results.filter { $0.status == .passed }.count) checks passed, "
                              + "\(report.results.filter { $0.status == .notApplicable }.count) not applicable")
            }
            console.print("policy uuid: \(summary.policyUUID)")
            console.print(String(format: "duration: %.3f s in %d segments", summary.duration, summary.segmentDurations.count))
            if let seconds = summary.ladderEncodeSeconds {
                console.print(String(format: "ladder: ffmpeg made the rungs in %.2f s; packaging took %.2f s", seconds, summary.packagingSeconds ?? 0))
            }
            for c in summary.components {
                console.print("\(c.id): \(c.codec), \(c.bytes) bytes, peak \(c.peakBitRate) bit/s, average \(c.averageBitRate) bit/s")
            }
        }
    }
}

struct PackageReport: Encodable {
    struct Component: Encodable { var id: String; var codec: String; var segments: Int; var bytes: Int; var peakBitRate: Int; var averageBitRate: Int }
    var output: String
    var profile: String
    var format: String
    var admitted: Bool?
    var audioReencodeReason: String?
    var policyUUID: String
    var duration: Double
    var segmentDurations: [Double]
    var bytes: UInt64
    var components: [Component]
    var entries: [String]
    var warnings: [String]
    var ladderEncodeSeconds: Double?
    var packagingSeconds: Double?

    init(_ s: PackageSummary) {
        output = s.output
        profile = s.profile
        admitted = s.admission?.isAdmitted
        audioReencodeReason = s.audioReencodeReason
        format = s.isDirectory ? "directory" : "zip"
        policyUUID = s.policyUUID
        duration = s.duration
        segmentDurations = s.segmentDurations
        bytes = s.bytes
        components = s.components.map { Component(id: $0.id, codec: $0.codec, segments: $0.segments, bytes: $0.bytes,
                                                  peakBitRate: $0.peakBitRate, averageBitRate: $0.averageBitRate) }
        entries = s.entries
        warnings = s.warnings
        ladderEncodeSeconds = s.ladderEncodeSeconds
        packagingSeconds = s.packagingSeconds
    }
}
