import MediaDRMCrypto
import MediaDRMFPSv2
import Foundation
import MediaDRMHLS
import MediaDRMTDF
import MediaDRMWebVTT

/// One playback of an fps-v2 package or a tdf-hls stream, presented as ONE clear fragmented MP4
/// (video and audio tracks) written in order to a `MediaOutput`.
///
/// fps-v2: every admission check runs before any key-service request (a refusal names the
/// check); then a `ContentKeySession` gets every component's key before the first output byte;
/// segments are read one at a time (over HTTP only the entries needed) and decrypted. tdf-hls:
/// the master must carry the profile marker; segments are Standard TDFs whose keys come from
/// bulk rewraps, the first batch before any output; each is verified before use. When the first
/// segment's policy carries `arkavo:media` the playback holds one media session
/// (`TDFHLSMediaSession`) and every rewrap goes through it (`POST /media/v1/rewrap`); otherwise
/// the OpenTDF rewrap route serves them.
/// Output stops at the first segment boundary after a lease lapses, the service ends the session
/// or `stop()` is called; every media session is ended whatever happens.
public final class PlaybackSession: @unchecked Sendable {
    public let source: PlaybackSource
    public let configuration: PlaybackConfiguration
    private let delegate: (any ContentKeySessionDelegate)?
    private let progress: (@Sendable (PlaybackEvent) -> Void)?
    private let lock = NSLock()
    private var keySession: ContentKeySession?
    private var mediaSession: TDFHLSMediaSession?
    private var stopRequested = false

    public init(source: PlaybackSource, configuration: PlaybackConfiguration,
                delegate: (any ContentKeySessionDelegate)? = nil, progress: (@Sendable (PlaybackEvent) -> Void)? = nil) {
        self.source = source
        self.configuration = configuration
        self.delegate = delegate
        self.progress = progress
    }

    /// The key session of an fps-v2 playback, once keys are being acquired.
    public var contentKeySession: ContentKeySession? { lock.withLock { keySession } }

    /// tdf-hls with `renditionChoice.subtitles`: the chosen subtitle rendition after the
    /// playback, its segments merged into one WebVTT file (a cue repeated at a segment boundary
    /// taken once); nil before, or without subtitles.
    public var subtitles: WebVTTFile? { lock.withLock { reassembledSubtitles } }
    private var reassembledSubtitles: WebVTTFile?

    /// Stops the output at the next segment and ends every media session.
    public func stop() async {
        let (session, media) = lock.withLock { () -> (ContentKeySession?, TDFHLSMediaSession?) in
            stopRequested = true
            return (keySession, mediaSession)
        }
        await session?.stop()
        await media?.stop()
    }

    private var isStopRequested: Bool { lock.withLock { stopRequested } }

    /// Plays to the end. `holdUntil`, when given, runs after the last byte was written and
    /// before the sessions end (a player process still presenting keeps them alive).
    public func play(to output: any MediaOutput, holdUntil: (@Sendable () async -> Void)? = nil) async throws(PlaybackError) {
        let began = configuration.clock.now()
        let presentation = try await prepare()
        switch presentation {
        case .fpsV2(let package, let inits):
            try await playFPSv2(package, inits, output: output, began: began, holdUntil: holdUntil)
        case .tdfHLS(let stream):
            try await playTDFHLS(stream, output: output, began: began, holdUntil: holdUntil)
        }
    }

    // MARK: Preparation (no key-service request)

    enum Presentation: @unchecked Sendable {
        case fpsV2(FPSv2AdmittedPackage, [ClearInitSegment])
        case tdfHLS(TDFHLSStream)
    }

    private func prepare() async throws(PlaybackError) -> Presentation {
        let source = self.source, configuration = self.configuration, progress = self.progress
        return try await Blocking.run { () throws(PlaybackError) -> Presentation in
            switch source {
            case .packageFile(let path):
                return try Self.admit(Self.package { () throws(FPSv2Error) in try FPSv2Package(archivePath: path) }, configuration, progress)
            case .directory(let path):
                if !FileManager.default.fileExists(atPath: path + "/" + FPSv2EntryName.manifestName),
                   FileManager.default.fileExists(atPath: path + "/" + FPSv2EntryName.masterName) {
                    return .tdfHLS(try TDFHLSStream.open(loader: DirectoryResourceLoader(directory: path),
                                                         masterName: FPSv2EntryName.masterName, choice: configuration.renditionChoice))
                }
                return try Self.admit(FPSv2Package(directoryPath: path), configuration, progress)
            case .packageURL(let url):
                let range: HTTPRangeSource
                do {
                    range = try HTTPRangeSource(location: configuration.mediaLocation ?? FixedURL(url), client: configuration.client)
                } catch {
                    throw PlaybackError(.io, "the package URL could not be opened: \((error as? TransportError)?.reason ?? "unreadable")")
                }
                // Central directory first, then only the entries needed: each segment's local
                // header is verified when the segment is read (one request with its data).
                return try Self.admit(FPSv2Package(archive: range), configuration, progress, localHeaders: .onRead)
            case .tdfHLSMasterFile(let path):
                let (directory, name) = PlaybackSource.splitMaster(path)
                return .tdfHLS(try TDFHLSStream.open(loader: DirectoryResourceLoader(directory: directory), masterName: name,
                                                     choice: configuration.renditionChoice))
            case .tdfHLSMasterURL(let url):
                let loader = HTTPResourceLoader(location: configuration.mediaLocation ?? FixedURL(url), client: configuration.client)
                var name = Substring(url)
                if let cut = name.firstIndex(where: { $0 == "?" || $0 == "#" }) { name = name[..<cut] }
                return .tdfHLS(try TDFHLSStream.open(loader: loader, masterName: String(name.split(separator: "/").last ?? ""),
                                                     choice: configuration.renditionChoice))
            }
        }
    }

    private static func package(_ make: () throws(FPSv2Error) -> FPSv2Package) throws(PlaybackError) -> FPSv2Package {
        do {
            return try make()
        } catch {
            throw PlaybackError(.io, "the package could not be opened: \(error.reason)")
        }
    }

    private static func admit(_ package: FPSv2Package, _ configuration: PlaybackConfiguration,
                              _ progress: (@Sendable (PlaybackEvent) -> Void)?,
                              localHeaders: FPSv2Admission.Options.LocalHeaders = .eager) throws(PlaybackError) -> Presentation {
        try admit(package, keyServiceURL: configuration.keyServiceURL, progress, localHeaders: localHeaders)
    }

    /// Admits an fps-v2 package with `keyServiceURL` as the only accepted key service and
    /// rewrites its init segments to clear (also used offline, `OfflinePlayback`).
    static func admit(_ package: FPSv2Package, keyServiceURL: String, _ progress: (@Sendable (PlaybackEvent) -> Void)?,
                      localHeaders: FPSv2Admission.Options.LocalHeaders = .eager) throws(PlaybackError) -> Presentation {
        let admitted: FPSv2AdmittedPackage
        do {
            admitted = try FPSv2Admission.admit(package, options: FPSv2Admission.Options(
                acceptedKeyServiceURLs: [keyServiceURL], localHeaders: localHeaders))
        } catch {
            if let check = error.check {
                // The package may be fine and the key service the wrong one: say both URLs.
                let reason = check == .keyAccessURL ? error.reason
                    : "the package is not a playable fps-v2 package (check \(check.rawValue))"
                throw PlaybackError(.refused, reason, check: check.rawValue)
            }
            throw PlaybackError(.io, "the package could not be read: \(error.reason)")
        }
        var inits: [ClearInitSegment] = []
        for component in admitted.components {
            let bytes: Data
            do {
                bytes = try admitted.read(.initSegment(component: component.id))
            } catch {
                throw PlaybackError(.io, "\(component.id) init segment could not be read")
            }
            do {
                inits.append(try InitSegmentRewriter.rewrite([UInt8](bytes)))
            } catch {
                throw PlaybackError.media(error, "\(component.id) init segment")
            }
        }
        progress?(.admitted(checks: admitted.report.results.count, components: admitted.components.map(\.id),
                            segments: admitted.segmentCount))
        return .fpsV2(admitted, inits)
    }

    // MARK: fps-v2

    private func playFPSv2(_ package: FPSv2AdmittedPackage, _ inits: [ClearInitSegment], output: any MediaOutput,
                           began: Double, holdUntil: (@Sendable () async -> Void)?) async throws(PlaybackError) {
        let ids = package.components.map(\.id)
        let service = KASMediaService(baseURL: configuration.keyServiceURL, client: configuration.client,
                                      credential: configuration.credential)
        if configuration.fetchesCertificate {
            progress?(.certificate(bytes: try await service.certificate()?.count))
        }
        let session = ContentKeySession(service: service, assetID: package.policyUUID, manifest: package.manifestBytes,
                                        components: ids, playbackID: configuration.playbackID ?? ContentKeySession.makePlaybackID(),
                                        clock: configuration.clock, delegate: delegate, progress: progress)
        let alreadyStopped = lock.withLock { () -> Bool in
            keySession = session
            return stopRequested
        }
        if alreadyStopped { await session.stop() }
        do throws(PlaybackError) {
            let keys = try await session.start()
            var decryptors: [FragmentDecryptor] = []
            for (index, id) in ids.enumerated() {
                guard let key = keys[id] else { throw PlaybackError(.malformed, "a component's key is missing") }
                do {
                    decryptors.append(try FragmentDecryptor(initSegment: inits[index], key: key))
                } catch {
                    throw PlaybackError.media(error, "\(id) init segment")
                }
            }
            let validity = session.validity
            let readers = FPSv2Segments(package: package, components: ids)
            try await stream(inits: inits, decryptors: decryptors, readers: readers, validity: validity,
                             output: output, began: began)
            if let holdUntil { await holdUntil() }
            try validity.check()
            await session.stop()
        } catch {
            await session.stop()
            if error.code == .stopped || isStopRequested { throw PlaybackError(.stopped, "the playback was stopped") }
            throw error
        }
    }

    // MARK: tdf-hls

    private func playTDFHLS(_ stream: TDFHLSStream, output: any MediaOutput, began: Double,
                            holdUntil: (@Sendable () async -> Void)?) async throws(PlaybackError) {
        progress?(.tdfHLS(components: stream.components.map(\.id), segments: stream.components.first?.segments.count ?? 0))
        if stream.isLive {
            return try await playLiveTDFHLS(stream, output: output, began: began, holdUntil: holdUntil)
        }
        guard !configuration.live.fromStart, configuration.live.duration == nil else {
            throw PlaybackError(.invalidArgument, "--from-start and --duration follow a live stream, and this one is finished "
                                + "(its playlists end with EXT-X-ENDLIST); leave them out")
        }
        let reporter = KeyDeliveryReporter(delegate: delegate)
        // Protected subtitle segments are one more component whose keys come in the same bulk
        // rewraps; the muxer reads only the media components before it.
        let subtitleKeys = stream.subtitles.flatMap { $0.isProtected ? TDFSegmentKeys.Component(id: $0.id, segments: $0.segments) : nil }
        let keys = segmentKeys(stream, stream.components.map { .init(id: $0.id, segments: $0.segments) } + (subtitleKeys.map { [$0] } ?? []),
                               lookahead: configuration.segmentKeyLookahead, progress: progress)
        var media: StartedMediaSession?
        do throws(PlaybackError) {
            let policyText = try await Blocking.run { () throws(PlaybackError) in try keys.firstPolicy() }
            media = try await startMediaSession(policyText: policyText)
            if let id = media?.sessionID { keys.useMediaSession(id) }
            // Every component's first keys before any output.
            try await Blocking.run { () throws(PlaybackError) in try keys.prefetch(from: 0) }
        } catch {
            reporter.failed(error)
            await media?.session.stop()
            if error.code == .stopped || isStopRequested { throw PlaybackError(.stopped, "the playback was stopped") }
            throw error
        }
        reporter.delivered(stream.components.map(\.id))
        let validity = media?.session.validity ?? KeyValidity(clock: configuration.clock)
        try await presentTDFHLS(media: media, validity: validity, holdUntil: holdUntil) { () async throws(PlaybackError) in
            try await self.stream(inits: stream.inits, decryptors: try self.decryptors(stream), readers: keys, validity: validity,
                                  output: output, began: began)
            if let subtitles = stream.subtitles {
                let loader = stream.loader, component = stream.components.count
                let file = try await Blocking.run { () throws(PlaybackError) -> WebVTTFile in
                    try subtitles.reassemble(loader: loader) { (n) throws(PlaybackError) -> [UInt8] in
                        try keys.clearSegment(component: component, index: n)
                    }
                }
                lock.withLock { reassembledSubtitles = file }
            }
        }
    }

    /// Runs `output`, waits for `holdUntil`, then ends the media session whatever happened.
    private func presentTDFHLS(media: StartedMediaSession?, validity: KeyValidity, holdUntil: (@Sendable () async -> Void)?,
                               _ output: () async throws(PlaybackError) -> Void) async throws(PlaybackError) {
        do throws(PlaybackError) {
            try await output()
            if let holdUntil { await holdUntil() }
            try validity.check()
        } catch {
            await media?.session.stop()
            if error.code == .stopped || isStopRequested { throw PlaybackError(.stopped, "the playback was stopped") }
            throw error
        }
        await media?.session.stop()
        if isStopRequested { throw PlaybackError(.stopped, "the playback was stopped") }
    }

    /// The bulk-rewrap reader of `components`' segments.
    private func segmentKeys(_ stream: TDFHLSStream, _ components: [TDFSegmentKeys.Component], lookahead: Int,
                             progress: (@Sendable (PlaybackEvent) -> Void)?) -> TDFSegmentKeys {
        TDFSegmentKeys(
            loader: stream.loader, components: components,
            rewrap: OpenTDFRewrapClient(baseURL: configuration.keyServiceURL, client: configuration.client,
                                        credential: configuration.credential,
                                        rateLimit: RateLimitWait(announce: { [progress] in progress?(.rateLimited(seconds: $0)) })),
            keyServiceURL: configuration.keyServiceURL, lookahead: lookahead,
            clock: configuration.clock, progress: progress)
    }

    /// A policy with media rules is served only through a media session (docs/protocol.md):
    /// started here, or nil for a policy without them.
    private func startMediaSession(policyText: String) async throws(PlaybackError) -> StartedMediaSession? {
        guard let policy = try? TDFPolicy(base64: policyText), policy.media != nil else { return nil }
        let session = TDFHLSMediaSession(
            service: KASMediaService(baseURL: configuration.keyServiceURL, client: configuration.client,
                                     credential: configuration.credential),
            // The session names the kind of rendition played: KAS component ids are 1 to 32
            // lower-case letters, which a ladder's variant ids (`video-1`) are not.
            assetID: policy.uuid, rendition: "video", clock: configuration.clock,
            progress: progress)
        let alreadyStopped = lock.withLock { () -> Bool in
            mediaSession = session
            return stopRequested
        }
        if alreadyStopped { await session.stop() }
        do throws(PlaybackError) {
            return StartedMediaSession(session: session, sessionID: try await session.start())
        } catch {
            await session.stop()
            throw error
        }
    }

    /// Each component's clear init, ready for decryption.
    private func decryptors(_ stream: TDFHLSStream) throws(PlaybackError) -> [FragmentDecryptor] {
        try decryptors(stream.inits, of: stream.components.map(\.id))
    }

    /// `inits`, those of components `ids`, ready for decryption.
    private func decryptors(_ inits: [ClearInitSegment], of ids: [String]) throws(PlaybackError) -> [FragmentDecryptor] {
        var decryptors: [FragmentDecryptor] = []
        for (index, clearInit) in inits.enumerated() {
            do {
                decryptors.append(try FragmentDecryptor(initSegment: clearInit, keys: [:]))
            } catch {
                throw PlaybackError.media(error, "\(ids[index]) init segment")
            }
        }
        return decryptors
    }

    // MARK: live tdf-hls

    /// Follows a live stream (docs/live.md, "The player") until `EXT-X-ENDLIST`, `--duration`, a
    /// stop, or a failure; the first segment's key is in hand before any output.
    private func playLiveTDFHLS(_ stream: TDFHLSStream, output: any MediaOutput, began: Double,
                                holdUntil: (@Sendable () async -> Void)?) async throws(PlaybackError) {
        guard stream.subtitles == nil else {
            throw PlaybackError(.invalidArgument, "subtitles of a live stream are not written yet; leave out --subtitles-out")
        }
        let live = configuration.live
        let follower = LivePlaylistFollower(
            loader: stream.loader, playlists: stream.components.map { (name: $0.playlistURI, component: $0.id) },
            options: live, stopped: { [weak self] in self?.isStopRequested ?? true })
        let segments = LiveTDFSegments(follower: follower, componentIDs: stream.components.map(\.id), clock: live.clock,
                                       progress: progress) { [self] listed in
            segmentKeys(stream, listed.map { .init(id: "\($0.component)-\($0.segment.sequence)", segments: [$0.segment.uri]) },
                        lookahead: 1, progress: nil)
        }
        var media: StartedMediaSession?
        let start: Int
        do throws(PlaybackError) {
            start = try await Blocking.run { () throws(PlaybackError) in try follower.start() }
            progress?(.liveStarted(sequence: start, fromStart: live.fromStart))
            let policyText = try await Blocking.run { () throws(PlaybackError) in try segments.firstPolicy() }
            media = try await startMediaSession(policyText: policyText)
            if let id = media?.sessionID { segments.useMediaSession(id) }
        } catch {
            await media?.session.stop()
            if error.code == .stopped || isStopRequested { throw PlaybackError(.stopped, "the playback was stopped") }
            throw error
        }
        let validity = media?.session.validity ?? KeyValidity(clock: configuration.clock)
        try await presentTDFHLS(media: media, validity: validity, holdUntil: holdUntil) { () async throws(PlaybackError) in
            try await self.streamLiveParts(stream, segments: segments, start: start, validity: validity, output: output, began: began)
            let summary = segments.summary
            progress?(.liveEnded(segments: summary.segments, seconds: summary.seconds,
                                 medianLatency: summary.latency.median, maxLatency: summary.latency.maximum))
        }
    }

    /// Writes the live stream part after part: each part one fMP4 with the inits its first
    /// segment names, until the stream ends. A segment naming another init (an encoder restarted
    /// with other tracks) begins the next part in a new file when the output writes parts
    /// (`LivePartedOutput`, `player play -o DIR/`), and otherwise ends the playback naming it: one
    /// fMP4 holds one init. One `finished` event at the end counts every part's bytes.
    private func streamLiveParts(_ stream: TDFHLSStream, segments: LiveTDFSegments, start: Int, validity: KeyValidity,
                                 output: any MediaOutput, began: Double) async throws(PlaybackError) {
        let progress = self.progress
        let bytes = LiveBytesWritten()
        let partProgress: @Sendable (PlaybackEvent) -> Void = { event in
            if case .finished(let written, _) = event { bytes.add(written) } else { progress?(event) }
        }
        var maps = stream.components.map { Optional($0.initURI) }
        var inits = stream.inits
        var part = 0, first = 0
        while let named = try await Blocking.run({ [first] () throws(PlaybackError) in try segments.beginPart(at: first) }) {
            for (c, uri) in named.enumerated() where uri != maps[c] {
                guard let uri else { continue }
                inits[c] = try await Blocking.run { () throws(PlaybackError) in
                    try TDFHLSStream.clearInit(uri, of: stream.components[c].id, loader: stream.loader)
                }
                maps[c] = uri
            }
            let decryptors = try self.decryptors(inits, of: stream.components.map(\.id))
            try await self.stream(inits: inits, decryptors: decryptors, readers: segments, validity: validity,
                                  output: output, began: began, progress: part == 0 ? partProgress : { event in
                                      if case .firstClearByte = event { return }
                                      partProgress(event)
                                  })
            guard let change = segments.partChange else { break }
            guard let parted = output as? LivePartedOutput, parted.writesParts else {
                throw PlaybackError(.invalidSource, "\(change.description): the stream's encoder changed its tracks, and one "
                                    + "output file holds one init; play it with -o DIR/ to write a file per init")
            }
            part += 1
            do { try parted.startPart(part) } catch { throw PlaybackError.media(error, "live output part \(part)") }
            progress?(.livePart(part: part, sequence: start + change.index))
            first = change.index
        }
        progress?(.finished(bytes: bytes.total, seconds: configuration.clock.now() - began))
    }

    // MARK: Output

    private func stream(inits: [ClearInitSegment], decryptors: [FragmentDecryptor],
                        readers: any ComponentSegments, validity: KeyValidity,
                        output: any MediaOutput, began: Double,
                        progress: (@Sendable (PlaybackEvent) -> Void)? = nil) async throws(PlaybackError) {
        let stopped: @Sendable () -> Bool = { [weak self] in self?.isStopRequested ?? true }
        try await Self.stream(inits: inits, decryptors: decryptors, readers: readers, validity: validity, output: output,
                              began: began, clock: configuration.clock, progress: progress ?? self.progress, stopped: stopped)
    }

    /// Decrypts each component's segments in order and muxes them into one clear fMP4 (shared
    /// with offline playback, `OfflinePlayback`).
    static func stream(inits: [ClearInitSegment], decryptors: [FragmentDecryptor],
                       readers: any ComponentSegments, validity: KeyValidity, output: any MediaOutput, began: Double,
                       clock: any PlaybackClock, progress: (@Sendable (PlaybackEvent) -> Void)?,
                       stopped: @escaping @Sendable () -> Bool) async throws(PlaybackError) {
        let box = UncheckedBox((inits, decryptors, output))
        try await Blocking.run { () throws(PlaybackError) in
            let (inits, decryptors, output) = box.value
            let failure = FailureBox()
            var sources: [any MediaFragmentSource] = []
            for (c, decryptor) in decryptors.enumerated() {
                var next = 0
                sources.append(DecryptingSegmentSource(decryptor: decryptor) {
                    do throws(PlaybackError) {
                        if stopped() { throw PlaybackError(.stopped, "the playback was stopped") }
                        try validity.check()
                        guard let bytes = try readers.segment(component: c, index: next) else { return nil }
                        next += 1
                        return bytes
                    } catch {
                        failure.set(error)
                        throw error
                    }
                })
            }
            let counting = ProgressOutput(output, clock: clock, began: began, progress: progress)
            do throws(MediaError) {
                let muxer = try FragmentedMP4Muxer(components: inits)
                try muxer.stream(sources, to: counting)
            } catch {
                if let first = failure.value { throw first }
                throw PlaybackError.media(error, "clear media output")
            }
            progress?(.finished(bytes: counting.bytesWritten, seconds: clock.now() - began))
        }
    }
}

/// Each component's media segments in order, as the output pulls them.
protocol ComponentSegments: Sendable {
    /// Segment `index` of component `component`, or nil after its last one.
    func segment(component: Int, index: Int) throws(PlaybackError) -> [UInt8]?
}

/// The encrypted segments of an admitted fps-v2 package.
struct FPSv2Segments: ComponentSegments {
    let package: FPSv2AdmittedPackage
    let components: [String]

    func segment(component: Int, index: Int) throws(PlaybackError) -> [UInt8]? {
        guard components.indices.contains(component), index < package.segmentCount else { return nil }
        do {
            return [UInt8](try package.read(.segment(component: components[component], number: index)))
        } catch {
            if let check = error.check {
                // A local header verified on read that disagrees (§4.2) or breaks the layout (§4.3).
                throw PlaybackError(.refused, "\(components[component]) segment \(index) is refused (check \(check.rawValue))",
                                    check: check.rawValue)
            }
            if error.code == .corrupted {
                throw PlaybackError(.integrity, "\(components[component]) segment \(index): \(error.reason)")
            }
            throw PlaybackError(.io, "\(components[component]) segment \(index) could not be read: \(error.reason)")
        }
    }
}

final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: PlaybackError?
    var value: PlaybackError? { lock.withLock { stored } }
    func set(_ error: PlaybackError) { lock.withLock { if stored == nil { stored = error } } }
}

/// The bytes of every part of a live output, summed for its one `finished` event.
final class LiveBytesWritten: @unchecked Sendable {
    private let lock = NSLock()
    private var sum: UInt64 = 0
    var total: UInt64 { lock.withLock { sum } }
    func add(_ bytes: UInt64) { lock.withLock { sum += bytes } }
}

/// Counts the bytes written and reports the first one.
final class ProgressOutput: MediaOutput {
    private let output: any MediaOutput
    private let clock: any PlaybackClock
    private let began: Double
    private let progress: (@Sendable (PlaybackEvent) -> Void)?
    private(set) var bytesWritten: UInt64 = 0

    init(_ output: any MediaOutput, clock: any PlaybackClock, began: Double, progress: (@Sendable (PlaybackEvent) -> Void)?) {
        self.output = output
        self.clock = clock
        self.began = began
        self.progress = progress
    }

    func write(_ bytes: [UInt8]) throws(MediaError) {
        try output.write(bytes)
        if bytesWritten == 0, !bytes.isEmpty { progress?(.firstClearByte(seconds: clock.now() - began)) }
        bytesWritten += UInt64(bytes.count)
    }
}

/// A started tdf-hls media session and the id its rewraps carry.
struct StartedMediaSession: Sendable {
    let session: TDFHLSMediaSession
    let sessionID: String
}
