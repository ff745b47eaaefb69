import Foundation
import MediaDRMMedia
import MediaDRMMP4
import MediaDRMToolSupport
import Packager

/// `packager live`: a tdf-hls stream from fragmented MP4 arriving on a pipe (docs/live.md).
enum LiveVerb {
    static let verb = ToolVerb(
        "live",
        summary: "Package fragmented MP4 arriving on a pipe as a live tdf-hls stream (sliding playlists, key periods).",
        discussion: """
            The input is what an encoder writes on a pipe (ffmpeg ... -f mp4 -movflags \
            frag_keyframe+empty_moov+default_base_moof pipe:1): ftyp, a moov with mvex, then \
            moof+mdat pairs, read one fragment at a time. Segments are cut at IDR frames once \
            --segment-duration has accumulated; each is a Standard TDF with its own key, wrapped \
            to the KAS, as tdf-hls writes VOD segments, its key period (--key-period) bound into \
            its policy's arkavo:media (livePeriod, livePeriodStart, livePeriodSeconds). The media playlists list the \
            newest --window segments (or --dvr seconds, when more) with EXT-X-PROGRAM-DATE-TIME, \
            segments that left them are deleted one playlist later, and EXT-X-ENDLIST is written \
            when the input ends. Run again on the same directory to continue the stream: \
            live-state.json keeps the media sequence, the periods and the window.
            """,
        options: [
            .single("input", valueName: "path", help: "The fragmented MP4 stream: - for standard input, or a file or FIFO.", required: true),
            .single("output", short: "o", valueName: "dir", help: "The stream directory (created; an existing one continues).", required: true),
            .single("profile", valueName: "name", help: "tdf-hls (the only live profile)."),
            .single("kas-url", valueName: "url", help: "The KAS URL written into every key access object.", required: true),
            .single("kas-public-key", valueName: "pem", help: "PEM file of the KAS public key.", required: true),
            .single("kas-kid", valueName: "kid", help: "The KAS key id written as keyAccess kid."),
            .single("policy", valueName: "file", help: "Policy JSON with body.dataAttributes (and arkavo:media rules, if any).", required: true),
            .single("segment-duration", valueName: "seconds", help: "Target segment duration (default 6)."),
            .single("window", valueName: "segments", help: "Segments the media playlists list at least (default 6)."),
            .single("dvr", valueName: "seconds", help: "Seconds the media playlists cover at least (default 0)."),
            .single("key-period", valueName: "seconds", help: "Seconds of stream per key period (default 600)."),
            .json,
            .quiet,
        ],
        arguments: [],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let profile = arguments.value("profile") ?? LiveTDFHLSPackager.profile
        guard profile == LiveTDFHLSPackager.profile else {
            throw UsageError("invalid value '\(profile)' for '--profile': live packages tdf-hls only (cmaf live is not built yet)")
        }
        let pem = try FileInput.readText(try arguments.requiredValue("kas-public-key"), role: "KAS public key")
        var package = PackageOptions(kasURL: try arguments.requiredValue("kas-url"), kasPublicKeyPEM: pem, kasKID: arguments.value("kas-kid"))
        package.policyJSON = try FileInput.read(try arguments.requiredValue("policy"), role: "policy", maxBytes: 1 << 20)
        if let text = arguments.value("segment-duration") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600, seconds.isFinite else {
                throw UsageError("invalid value '\(text)' for '--segment-duration': expected seconds from 0 to 3600")
            }
            package.segmentDuration = seconds
        }
        package.progress = { line in console.progress(line) }
        var options = LiveOptions(package: package)
        if let n = try arguments.integer("window", in: 1 ... 10_000) { options.window = n }
        if let n = try arguments.integer("dvr", in: 0 ... 604_800) { options.dvrSeconds = Double(n) }
        if let n = try arguments.integer("key-period", in: 1 ... Int(MediaRules.maxLivePeriodSeconds)) { options.keyPeriodSeconds = Int64(n) }

        let path = try arguments.requiredValue("input")
        let descriptor: Int32 = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ToolFailure("cannot open the live input '\(path)'") }
        defer { if descriptor != 0 { close(descriptor) } }
        let output = try arguments.requiredValue("output")
        let summary: LiveSummary
        do {
            summary = try LiveTDFHLSPackager.run(stream: MP4FileDescriptorStream(descriptor: descriptor), output: output, options: options)
        } catch {
            throw ToolFailure(error.reason)
        }
        for warning in summary.warnings { console.warning(warning) }
        if arguments.flag("json") {
            try console.printJSON(LiveReport(summary))
        } else {
            console.print("wrote \(summary.output) (live tdf-hls, media sequence \(summary.sequences.lowerBound) to \(summary.sequences.upperBound - 1)\(summary.resumed ? ", continued" : ""))")
            console.print("policy uuid: \(summary.policyUUID)")
            console.print("key periods: \(summary.periods.map(String.init).joined(separator: ", "))")
            console.print("listed: \(summary.listed) segments, on disk: \(summary.onDisk)")
        }
    }
}

struct LiveReport: Encodable {
    var output: String
    var policyUUID: String
    var resumed: Bool
    var firstSequence: Int
    var nextSequence: Int
    var periods: [Int64]
    var listed: Int
    var onDisk: Int
    var droppedAudioPackets: Int
    var warnings: [String]

    init(_ s: LiveSummary) {
        output = s.output
        policyUUID = s.policyUUID
        resumed = s.resumed
        firstSequence = s.sequences.lowerBound
        nextSequence = s.sequences.upperBound
        periods = s.periods
        listed = s.listed
        onDisk = s.onDisk
        droppedAudioPackets = s.droppedAudioPackets
        warnings = s.warnings
    }
}
