// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Client
import Dispatch
import Foundation
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `player play`: admit, acquire every key, decrypt and present one clear fMP4.
enum PlayVerb {
    static let verb = ToolVerb(
        "play",
        summary: "Play an fps-v2 package or a tdf-hls stream: admit, get keys from the KAS, decrypt, present.",
        discussion: """
            SOURCE is read by one rule (docs/delivery.md): an http(s) URL whose path starts with \
            /v2/media/ is a delivery description, whose tdf source (picked by DRM system, never by \
            position) starts a playback at --kas; --asset ID instead of SOURCE starts one with \
            POST /media/v1/playback at --kas; a .m3u8 URL, a local .m3u8 file or a directory \
            holding master.m3u8 is a tdf-hls stream; anything else is an fps-v2 package (file, \
            directory, or URL read with Range requests). A playback's signed media URL is renewed \
            through --kas before it expires or when the origin answers 403, and the playback is \
            released (DELETE releaseUrl) at the end, on failure and on SIGINT or SIGTERM. An fps-v2 \
            package passes every reader admission check, with --kas as the only accepted key \
            service, before any request to the KAS; a refused package names the failed check. \
            Every component's key is in hand before the first byte of output. The clear tracks are \
            muxed into one fragmented MP4 streamed to stdout (never a terminal), to ffplay or mpv \
            with --play (a player that fails makes the command fail with its message), or to a file \
            only with --output. Output stops when a lease lapses or the \
            KAS ends the session; every media session is ended on exit, failure, SIGINT or SIGTERM. \
            Progress and key timings go to stderr. The token is sent only as the bearer credential. \
            With --json every progress line on stderr is instead one JSON object (an "event" \
            member: admitted, tdf-hls, certificate, session-started, key-delivered, \
            segment-keys-delivered, first-clear-byte, finished), and the last line is \
            {"event":"result","ok":true|false,...} with the error's code, reason, status, check and \
            refusal on failure (refusal: the key service's code for why this viewer was refused, \
            such as not_entitled, rental_playback_window_closed or concurrent_streams); stdout \
            stays media only. --fairplay fetches the KAS's FairPlay certificate \
            (GET /media/v1/certificate, no credential) after admission and reports its size, \
            or that none is configured. With --title NAME, a title downloaded with player download \
            plays from the offline library instead, opening no network connection: its licence is \
            verified (signature, device, expiry, playback window, clock) first (docs/offline.md). \
            tdf-hls with several variants: the highest BANDWIDTH is played unless --variant N \
            (from 1, in master-playlist order) or --max-height / --max-bandwidth narrow it; the \
            audio rendition is the group's DEFAULT unless --audio-lang names a BCP 47 language. \
            A live tdf-hls stream (media playlists without EXT-X-ENDLIST, docs/live.md) is followed: \
            playing starts three target durations behind the live edge (--from-start: the oldest \
            listed segment), the media playlists are reloaded on the RFC 8216 schedule (the target \
            duration after a change, half of it when unchanged; \(LivePlayOptions().maximumUnchangedReloads) unchanged reloads in a row end it \
            with an error), each segment in media-sequence order (one that left the playlist before \
            it was fetched ends it with an error), until EXT-X-ENDLIST or --duration seconds of \
            media; each segment's latency (the wall clock less its EXT-X-PROGRAM-DATE-TIME) is a \
            progress line (live-segment) and the median and maximum end it (live-ended). A \
            segment naming a new init (an encoder restarted with other tracks) starts a new file \
            with -o DIR/ (part-0.mp4, part-1.mp4, ...; live-part); into one file it ends the \
            playback with an error, as one fMP4 holds one init.
            """,
        options: [
            .single("kas", valueName: "url", help: "The key access server (the accepted key service URL); required unless --title."),
            .single("token", valueName: "token", help: "The viewer's bearer token; required unless --title."),
            .single("asset", valueName: "uuid", help: "Play this catalogued asset: POST /media/v1/playback at --kas (instead of SOURCE)."),
            .single("title", valueName: "name", help: "Play a downloaded title of the offline library instead, with no network (docs/offline.md)."),
            OfflineOptions.library,
            .single("ca", valueName: "file", help: "PEM certificates to trust instead of the system store."),
            .single("pin", valueName: "sha256//...", help: "Public-key pin of the KAS (libcurl form)."),
            .flag("fairplay", help: "Fetch and report the KAS's FairPlay certificate (no credential) before the sessions."),
            .flag("json", help: "Progress and the final result as one JSON object per line on stderr."),
            .flag("play", help: "Present with ffplay or mpv (whichever is installed)."),
            .single("output", short: "o", valueName: "file", help: "Write the clear fMP4 to this file, or to DIR/ as part-0.mp4, part-1.mp4, ... (a live stream's new init starts a part)."),
            .single("variant", valueName: "n", help: "tdf-hls: play variant N (from 1, in master-playlist order)."),
            .single("max-height", valueName: "pixels", help: "tdf-hls: the highest variant at most this tall."),
            .single("max-bandwidth", valueName: "bit/s", help: "tdf-hls: the highest variant whose BANDWIDTH is at most this."),
            .single("audio-lang", valueName: "tag", help: "tdf-hls: the audio rendition in this BCP 47 language (e.g. es)."),
            .single("subtitles-out", valueName: "file",
                    help: "tdf-hls: write the variant's subtitle rendition, its segments merged, as one WebVTT file."),
            .single("subtitles-lang", valueName: "tag", help: "tdf-hls: with --subtitles-out, the subtitle rendition in this BCP 47 language."),
            .flag("from-start", help: "Live tdf-hls: start at the oldest listed segment instead of near the live edge."),
            .single("duration", valueName: "seconds", help: "Live tdf-hls: stop after this many seconds of media."),
            .quiet,
        ],
        arguments: [ToolArgument("source", help: "Delivery URL (/v2/media/...), package file, directory or URL, tdf-hls master file or URL (not with --title).",
                                 optional: true)],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        if arguments.value("title") != nil { return try OfflinePlayCommand.run(arguments, console) }
        let target: PlaybackTarget
        do {
            target = try PlaybackTarget(argument: arguments.argument("source"), assetID: arguments.value("asset"))
        } catch {
            if error.code == .invalidArgument { throw UsageError(error.reason) }
            throw ToolFailure(error.reason)
        }
        let kas = try arguments.requiredValue("kas")
        let outputPath = arguments.value("output")
        let present = arguments.flag("play")
        if present, outputPath != nil { throw UsageError("--play and --output cannot be used together") }
        let credential: Credential
        do {
            credential = try Credential(bearerToken: try arguments.requiredValue("token"))
        } catch let error as TransportError {
            throw UsageError("--token: \(error.reason)")
        }
        var http = HTTPClientConfiguration()
        if let ca = arguments.value("ca") {
            http.trustedCertificatesPEM = try FileInput.read(ca, role: "CA file", maxBytes: 4 << 20)
        }
        http.publicKeyPin = arguments.value("pin")
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: http)
        } catch {
            throw UsageError(error.reason)
        }
        let choice = TDFHLSRenditionChoice(
            variant: try arguments.integer("variant", in: 1 ... 10_000),
            maxHeight: try arguments.integer("max-height", in: 1 ... 100_000),
            maxBandwidth: try arguments.integer("max-bandwidth", in: 1 ... Int(Int32.max)),
            audioLanguage: arguments.value("audio-lang"),
            subtitles: arguments.value("subtitles-out") != nil, subtitleLanguage: arguments.value("subtitles-lang"))
        if arguments.value("subtitles-lang") != nil, arguments.value("subtitles-out") == nil {
            throw UsageError("--subtitles-lang chooses what --subtitles-out writes; give --subtitles-out FILE")
        }
        if arguments.flag("from-start") || arguments.value("duration") != nil, case .source(let source) = target {
            switch source {
            case .packageFile, .packageURL:
                throw UsageError("--from-start and --duration follow a live tdf-hls stream; an fps-v2 package is not live")
            default: break
            }
        }
        if choice != TDFHLSRenditionChoice(), case .source(let source) = target {
            switch source {
            case .packageFile, .packageURL:
                throw UsageError("--variant, --max-height, --max-bandwidth, --audio-lang and --subtitles-out choose among a tdf-hls "
                                 + "stream's renditions; an fps-v2 package has one video, at most one audio and no subtitles (§3, §8)")
            default: break
            }
        }

        // The destination is settled before any network request.
        let presenter: PlayerProcess? = present ? try PlayerProcess.launch() : nil
        let destination: ClearMediaDestination? = present ? nil : try ClearMediaDestination(path: outputPath, parts: true)
        let output: any MediaOutput = presenter?.output ?? destination!

        let json = arguments.flag("json")
        let progress: @Sendable (PlaybackEvent) -> Void = { event in
            if json { console.printError(ProgressJSON.line(event)) } else { console.progress(describe(event)) }
        }
        var configuration = PlaybackConfiguration(keyServiceURL: kas, credential: credential, client: client)
        configuration.fetchesCertificate = arguments.flag("fairplay")
        configuration.renditionChoice = choice
        configuration.live.fromStart = arguments.flag("from-start")
        if let seconds = try arguments.integer("duration", in: 1 ... 7 * 86_400) { configuration.live.duration = Double(seconds) }
        let delivered: DeliveredPlayback?
        let source: PlaybackSource
        do {
            (source, delivered) = try DeliveredSource.resolve(target, configuration: &configuration)
        } catch {
            destination?.abandon()
            presenter?.terminate()
            if json { console.printError(ProgressJSON.result(error)) }
            throw ToolFailure(error.code == .refused || error.refusal != nil ? "refused: \(error.reason)" : error.description)
        }
        if let delivered, !json {
            console.progress("playback started: \(delivered.grant.title ?? "untitled"), "
                             + "\(delivered.source.isTDFHLS ? "tdf-hls" : "fps-v2") media from \(DeliveredSource.origin(delivered.grant.mediaURL))")
        }
        let session = PlaybackSession(source: source, configuration: configuration, progress: progress)
        delivered?.startKeepingAlive()

        let signals = SignalStopper { name in
            console.progress("\(name): stopping and ending the media sessions")
            Task {
                await session.stop()
                presenter?.terminate()
            }
        }
        defer { signals.cancel() }

        let outcome = ResultBox()
        let done = DispatchSemaphore(value: 0)
        var hold: (@Sendable () async -> Void)?
        if let presenter {
            hold = { @Sendable () async -> Void in await presenter.waitForExit() }
        }
        let holdUntil = hold
        let sendableOutput = UncheckedOutput(output)
        Task {
            do throws(PlaybackError) {
                try await session.play(to: sendableOutput.value, holdUntil: holdUntil)
            } catch {
                outcome.error = error
            }
            // Ended, failed or stopped: the playback's slot is freed at once (best effort).
            if let failure = await delivered?.release(), !json {
                console.progress("the playback could not be released: \(failure.reason)")
            }
            done.signal()
        }
        done.wait()
        // A player process that failed (no display, a decoder error) is the cause, even when
        // the playback then failed writing to it.
        if let presenter, let failure = presenter.failure() {
            presenter.terminate()
            let error = PlaybackError(.presentation, failure)
            if json { console.printError(ProgressJSON.result(error)) }
            throw ToolFailure(error.description)
        }
        if let error = outcome.error {
            destination?.abandon()
            presenter?.terminate()
            // An origin 403 that outlived a failed renewal: say why the renewal failed.
            if let renewal = delivered?.mediaURL.lastFailure, !json {
                console.progress("the media URL could not be renewed: \(renewal.reason)")
            }
            if json { console.printError(ProgressJSON.result(error)) }
            if error.code == .refused {
                if error.check == AdmissionCheck.keyAccessURL.rawValue {
                    throw ToolFailure("refused: the package's key service and --kas differ: \(error.reason)")
                }
                throw ToolFailure("refused: \(error.reason)")
            }
            throw ToolFailure(error.description)
        }
        try destination?.finish()
        if let path = arguments.value("subtitles-out") {
            guard let subtitles = session.subtitles else { throw ToolFailure("the playback had no subtitle rendition to write to '\(path)'") }
            let text = subtitles.serialized()
            do {
                try AtomicFileWriter.write(Data(text.utf8), to: path)
            } catch {
                throw ToolFailure(output: error)
            }
            console.progress("wrote \(subtitles.cues.count) subtitle cues to '\(path)'")
        }
        if json {
            console.printError(ProgressJSON.result(nil, bytesWritten: destination?.bytesWritten))
            return
        }
        if let destination, let path = destination.path {
            console.progress("wrote \(destination.bytesWritten) bytes of clear media to '\(path)'")
        }
    }

    static func describe(_ event: PlaybackEvent) -> String {
        switch event {
        case .admitted(let checks, let components, let segments):
            return "admitted: fps-v2, \(checks) checks, components \(components.joined(separator: ", ")), \(segments) segments each"
        case .tdfHLS(let components, let segments):
            return "tdf-hls stream: components \(components.joined(separator: ", ")), \(segments) segments"
        case .certificate(let bytes?):
            return "certificate: \(bytes) bytes"
        case .certificate(nil):
            return "certificate: none configured on the key service"
        case .sessionStarted(let component):
            return "session started: \(component)"
        case .keyDelivered(let component, let seconds):
            return "key delivered: \(component) in \(milliseconds(seconds)) ms"
        case .segmentKeysDelivered(let count, let seconds):
            return "segment keys delivered: \(count) in one rewrap, \(milliseconds(seconds)) ms"
        case .rateLimited(let seconds):
            return "rate limited by the key service: sending the rewrap again in \(seconds) s"
        case .firstClearByte(let seconds):
            return "first clear byte after \(milliseconds(seconds)) ms"
        case .finished(let bytes, let seconds):
            return "finished: \(bytes) bytes in \(milliseconds(seconds)) ms"
        case .liveStarted(let sequence, let fromStart):
            return "live: playing from segment \(sequence) (\(fromStart ? "the oldest listed" : "3 target durations behind the edge"))"
        case .liveSegment(let sequence, let seconds, let latency):
            return "live segment \(sequence): \(milliseconds(seconds)) ms of media, latency "
                + (latency.map { "\(milliseconds($0)) ms" } ?? "unknown (no EXT-X-PROGRAM-DATE-TIME)")
        case .livePart(let part, let sequence):
            return "live: segment \(sequence) starts a new init segment; writing part \(part) of the output"
        case .liveEnded(let segments, let seconds, let median, let maximum):
            return "live ended: \(segments) segments, \(milliseconds(seconds)) ms of media, latency median "
                + "\(median.map { "\(milliseconds($0)) ms" } ?? "unknown"), max \(maximum.map { "\(milliseconds($0)) ms" } ?? "unknown")"
        }
    }

    static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
}

final class ResultBox: @unchecked Sendable {
    var error: PlaybackError?
}

final class UncheckedOutput: @unchecked Sendable {
    let value: any MediaOutput
    init(_ value: any MediaOutput) { self.value = value }
}

/// SIGINT and SIGTERM stop the playback (which ends its media sessions) instead of killing the
/// process: both are unblocked (a parent may have blocked them) and routed to dispatch sources.
final class SignalStopper: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(_ handler: @escaping @Sendable (String) -> Void) {
        var set = sigset_t()
        sigemptyset(&set)
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            sigaddset(&set, number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(name) }
            source.resume()
            sources.append(source)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
