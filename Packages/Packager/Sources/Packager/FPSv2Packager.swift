import MediaDRMCENC
import MediaDRMFPSv2
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMMP4
import MediaDRMTDF
import MediaDRMMedia

/// What to package and how.
public struct PackageOptions: Sendable {
    /// The key service written into every key access object; fps-v2 needs an https origin
    /// (§5.2 #2), plain http only to a loopback host.
    public var kasURL: String
    /// PEM of the KAS public key (RSA 2048+ for fps-v2's `wrapped` key access; tdf-hls also
    /// takes P-256, giving `ec-wrapped`).
    public var kasPublicKeyPEM: String
    public var kasKID: String?
    /// The creator's policy JSON (must have `body.dataAttributes`).
    public var policyJSON: Data?
    /// The creator's classification given apart from the policy (`--classification`); fps-v2
    /// needs one there or in the policy (§6.4).
    public var classification: FPSv2Classification?
    public var media: MediaRules?
    /// Target segment duration in seconds.
    public var segmentDuration: Double = 6
    /// Write a standard-layout ZIP64 archive (fps-v2 readers refuse it); without it an archive
    /// over 4,294,967,295 bytes is refused (§4 #6).
    public var allowZIP64 = false
    /// ffmpeg for re-encoding audio; nil looks at `$MEDIADRM_FFMPEG`, then `$PATH`.
    public var ffmpegPath: String?
    /// Messages about progress (for stderr).
    public var progress: (@Sendable (String) -> Void)?

    public init(kasURL: String, kasPublicKeyPEM: String, kasKID: String? = nil, policyJSON: Data? = nil) {
        self.kasURL = kasURL
        self.kasPublicKeyPEM = kasPublicKeyPEM
        self.kasKID = kasKID
        self.policyJSON = policyJSON
    }
}

/// What was written.
public struct PackageSummary: Sendable, Equatable {
    public struct Component: Sendable, Equatable {
        public var id: String
        public var codec: String
        public var segments: Int
        public var bytes: Int
        public var peakBitRate: Int
        public var averageBitRate: Int
    }

    public var output: String
    /// "fps-v2" or "tdf-hls".
    public var profile: String
    public var isDirectory: Bool
    public var policyUUID: String
    public var components: [Component]
    public var segmentDurations: [Double]
    public var duration: Double
    /// The archive's size (ZIP) or the sum of the entries (directory).
    public var bytes: UInt64
    public var entries: [String]
    /// Why the sound was mixed and re-encoded as AAC-LC; nil when it was packaged as it is.
    public var audioReencodeReason: String?
    /// The reader admission of the written package (fps-v2), run before it was moved into place.
    public var admission: AdmissionReport?
    public var warnings: [String]
    /// `--ladder`: the seconds ffmpeg took to make the rungs, apart from packaging.
    public var ladderEncodeSeconds: Double? = nil
    /// tdf-hls: the seconds packaging took after any ladder encoding.
    public var packagingSeconds: Double? = nil
}

/// Writes fps-v2 packages (draft-arkavo-tdf-fairplay-01).
public enum FPSv2Packager {
    /// The largest stored ZIP32 (§4 #6).
    public static let maximumArchiveBytes: UInt64 = 4_294_967_295

    /// The size of the exact-layout stored ZIP32 of these entries: per entry a 30-byte local
    /// header and a 46-byte central record, each with the name, then the 22-byte end record.
    public static func archiveBytes(entries: [(name: String, size: Int)]) -> UInt64 {
        entries.reduce(UInt64(22)) { $0 + UInt64(30 + 46 + 2 * $1.name.utf8.count) + UInt64($1.size) }
    }

    /// §4 #6: an archive over 4,294,967,295 bytes is refused unless ZIP64 is allowed.
    public static func checkArchiveSize(_ bytes: UInt64, allowZIP64: Bool) throws(PackagerError) {
        guard bytes > maximumArchiveBytes, !allowZIP64 else { return }
        throw PackagerError(.limitExceeded,
                            "the package would be \(bytes) bytes, over the ZIP32 limit of 4,294,967,295 bytes (fps-v2 §4 #6); use --zip64 to write ZIP64, which fps-v2 readers refuse")
    }

    /// The checks the packager's own output must pass: every reader check with `kasURL` accepted
    /// as the key service. With ZIP64 the container checks are expected to fail and are excused.
    public static func admissionOptions(kasURL: String) -> FPSv2Admission.Options {
        FPSv2Admission.Options(acceptedKeyServiceURLs: [kasURL])
    }

    /// Packages `input` to `output`: a stored ZIP, or a directory of the same entries when
    /// `output` names a directory (an existing one, or a path ending in `/`). The package is
    /// checked with `FPSv2Admission` before it is moved into place. On any failure nothing is
    /// left at `output`.
    public static func package(input: String, output: String, options: PackageOptions) throws(PackagerError) -> PackageSummary {
        let say = options.progress ?? { _ in }
        // Everything that can be checked without the media comes first.
        let rsaKey = try options.fpsV2KeyService(profile: "fps-v2")
        let policyJSON = try options.requiredPolicy(profile: "fps-v2")
        try options.media?.validateAsPackagerFlags()
        let uuid = try PackagePolicy.freshUUID()
        let preparedPolicy = try PackagePolicy.prepare(policyJSON, uuid: uuid, media: options.media,
                                                       classification: options.classification, requireClassification: true)
        try options.checkSegmentDuration()
        let isDirectory = Self.isDirectoryOutput(output)
        if isDirectory, options.allowZIP64 {
            throw PackagerError(.invalidArgument, "--zip64 applies to a ZIP archive, not to a directory output")
        }

        let source = try PreparedSource(input: input, segmentDuration: options.segmentDuration, ffmpegPath: options.ffmpegPath, say: say)
        defer { source.removeScratch() }
        let plan = source.plan
        let streams = source.streams
        guard plan.segments.count <= FPSv2Profile.maxSegmentsPerComponent else {
            throw PackagerError(.limitExceeded,
                                "the package would have \(plan.segments.count) segments per component; fps-v2 allows \(FPSv2Profile.maxSegmentsPerComponent)")
        }

        // Keys, policy, key access, manifest.
        let keys = try PackageKeys(componentIDs: streams.map(\.kind.rawValue))
        var componentKeys: [FPSv2Manifest.ComponentKey] = []
        for component in keys.components {
            guard let kind = MediaComponentKind(rawValue: component.id) else {
                throw PackagerError(.invalidArgument, "'\(component.id)' is not an fps-v2 component")
            }
            do { componentKeys.append(try FPSv2Manifest.ComponentKey(kind: kind, key: component.key, wrappingTo: rsaKey)) } catch {
                throw PackagerError(.cryptoFailure, "wrapping the \(component.id) key failed: \(error.reason)")
            }
        }
        var manifest: FPSv2Manifest
        do {
            manifest = try FPSv2Manifest.make(policy: preparedPolicy, components: componentKeys, iv: keys.iv,
                                              keyServiceURL: options.kasURL, kid: options.kasKID)
        } catch {
            throw PackagerError(.invalidPolicy, "the manifest could not be made: \(error.reason)")
        }
        manifest.payload = JSONObject([("type", .string("reference")), ("url", .string(FPSv2EntryName.masterName)),
                                       ("protocol", .string("zip")), ("mimeType", .string("application/vnd.apple.mpegurl")),
                                       ("isEncrypted", .bool(true))])
        manifest.meta = .object(JSONObject([("profile", .string(Self.profile)), ("profileVersion", .number(JSONNumber(2)))]))
        let manifestBytes = [UInt8](manifest.jsonData())

        // Media sizes first: the playlists come before the media in the archive.
        var inits: [[UInt8]] = []
        var sizes: [[Int]] = []
        for stream in streams {
            guard let component = keys[stream.kind.rawValue] else { throw PackagerError(.cryptoFailure, "a component key is missing") }
            inits.append(stream.kind == .video
                ? try InitSegment.video(stream.track, keyID: component.keyID, constantIV: keys.iv)
                : try InitSegment.audio(stream.track, keyID: component.keyID, constantIV: keys.iv))
            var list: [Int] = []
            for (n, segment) in plan.segments.enumerated() { list.append(try stream.size(segment: segment, index: n)) }
            sizes.append(list)
        }
        let durations = plan.durations
        let rates = sizes.map { BitRates(sizes: $0, durations: durations) }
        let playlists = try FPSv2Playlists(plan: plan, video: source.selection.video, audio: source.audioTrack,
                                           audioConfig: source.audioConfig, audioLanguage: source.audioLanguage, rates: rates, uuid: uuid, iv: keys.iv)

        // Entry order (§4 #4): manifest, master, then each component's playlist, init, segments.
        let names = FPSv2EntryName.packageEntries(components: streams.map(\.kind.rawValue), segmentCount: plan.segments.count)
        func size(of name: FPSv2EntryName) -> Int {
            switch name {
            case .manifest: manifestBytes.count
            case .master: playlists.master.count
            case .playlist(let id): streams.firstIndex { $0.kind.rawValue == id }.map { playlists.media[$0].count } ?? 0
            case .initSegment(let id): streams.firstIndex { $0.kind.rawValue == id }.map { inits[$0].count } ?? 0
            case .segment(let id, let n): streams.firstIndex { $0.kind.rawValue == id }.map { sizes[$0][n] } ?? 0
            }
        }
        let entries = names.map { (name: $0.name, size: size(of: $0)) }
        let archiveBytes = Self.archiveBytes(entries: entries)
        var warnings: [String] = []
        if !isDirectory {
            try Self.checkArchiveSize(archiveBytes, allowZIP64: options.allowZIP64)
            if options.allowZIP64 { warnings.append("--zip64: the archive is ZIP64 (standard layout); fps-v2 readers refuse it") }
        }
        if let reason = source.reencodeReason { warnings.append("the audio was mixed and re-encoded to AAC-LC: \(reason)") }

        let sink: any PackageSink = isDirectory ? try DirectoryPackageSink(path: output)
                                                : try ZIPPackageSink(path: output, zip64: options.allowZIP64)
        let report: AdmissionReport
        do throws(PackagerError) {
            try sink.add(name: FPSv2EntryName.manifestName, bytes: manifestBytes)
            try sink.add(name: FPSv2EntryName.masterName, bytes: Array(playlists.master))
            for (c, stream) in streams.enumerated() {
                let id = stream.kind.rawValue
                guard let component = keys[id] else { throw PackagerError(.cryptoFailure, "a component key is missing") }
                let cipher: CBCSSampleCipher
                do {
                    cipher = try CBCSSampleCipher(key: component.key, constantIV: keys.iv,
                                                  pattern: stream.kind == .video ? .video : .fullSample)
                } catch {
                    throw PackagerError(.cryptoFailure, "the \(id) cipher could not be created")
                }
                try sink.add(name: FPSv2EntryName.playlist(component: id).name, bytes: Array(playlists.media[c]))
                try sink.add(name: FPSv2EntryName.initSegment(component: id).name, bytes: inits[c])
                for (n, segment) in plan.segments.enumerated() {
                    let bytes = try stream.bytes(segment: segment, index: n, cipher: cipher)
                    guard bytes.count == sizes[c][n] else {
                        throw PackagerError(.malformedInput, "\(id) segment \(n) changed size between planning and writing")
                    }
                    try sink.add(name: FPSv2EntryName.segment(component: id, number: n).name, bytes: bytes)
                    if plan.segments.count >= 20, n % 10 == 0 { say("  \(id): segment \(n + 1) of \(plan.segments.count)") }
                }
            }
            let staged = try sink.finish()
            report = try Self.admit(staged: staged, isDirectory: isDirectory, zip64: options.allowZIP64, kasURL: options.kasURL)
            try sink.commit()
        } catch {
            sink.discard()
            throw error
        }
        say("wrote \(output)")
        let summaries = streams.enumerated().map { c, stream in
            PackageSummary.Component(id: stream.kind.rawValue,
                                     codec: stream.kind == .video ? playlists.videoCodec : "mp4a.40.2",
                                     segments: plan.segments.count, bytes: sizes[c].reduce(0, +) + inits[c].count,
                                     peakBitRate: rates[c].peak, averageBitRate: rates[c].average)
        }
        let written = isDirectory ? UInt64(entries.reduce(0) { $0 + $1.size }) : (Self.fileSize(output) ?? archiveBytes)
        return PackageSummary(output: output, profile: "fps-v2", isDirectory: isDirectory, policyUUID: uuid, components: summaries,
                              segmentDurations: durations, duration: durations.reduce(0, +), bytes: written,
                              entries: entries.map(\.name), audioReencodeReason: source.reencodeReason, admission: report,
                              warnings: warnings)
    }

    /// `meta.profile`, informational (§5.1 #2).
    public static let profile = "fmp4-cbcs-fps"

    /// Runs reader admission on the finished package before it is moved into place. A package
    /// the packager's own reader check refuses is never published; with ZIP64 the ZIP32 checks
    /// are the expected failures.
    static func admit(staged path: String, isDirectory: Bool, zip64: Bool, kasURL: String) throws(PackagerError) -> AdmissionReport {
        let package: FPSv2Package
        if isDirectory {
            package = FPSv2Package(directoryPath: path)
        } else {
            do { package = try FPSv2Package(archivePath: path) } catch {
                throw PackagerError(.io, "the written archive could not be reopened for admission")
            }
        }
        let report = FPSv2Admission.check(package, options: admissionOptions(kasURL: kasURL))
        let excused: Set<AdmissionCheck> = zip64 ? [.zip32, .exactLayout, .endRecord, .storedEntries, .headersAgree] : []
        for result in report.results where result.status == .failed || result.status == .notRun {
            if excused.contains(result.check) { continue }
            if result.status == .notRun, zip64 { continue }
            throw PackagerError(.notAdmitted, "the written package fails reader admission at \(result.check.rawValue): \(result.detail)")
        }
        return report
    }

    static func fileSize(_ path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value
    }

    /// `-o` names a directory when it ends in `/` or is an existing directory.
    public static func isDirectoryOutput(_ path: String) -> Bool {
        if path.hasSuffix("/") { return true }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

/// Peak and average bit rates of a rendition's segments (RFC 8216 §4.3.4.2), shared with tdf-hls.
typealias BitRates = HLSBitRate
