import CENC
import Crypto
import Encoding
import Foundation
import HLS
import JSON
import MP4
import TDF

/// What to package and how.
public struct PackageOptions: Sendable {
    public var kasURL: String
    /// PEM of the KAS public key (RSA 2048+ for fps-v2's `wrapped` key access).
    public var kasPublicKeyPEM: String
    public var kasKID: String?
    /// The creator's policy JSON (must have `body.dataAttributes`).
    public var policyJSON: Data?
    public var media: MediaPolicy?
    /// Target segment duration in seconds.
    public var segmentDuration: Double = 6
    /// Write a standard-layout ZIP64 archive when the package exceeds 4 GiB (fps-v2 readers refuse it).
    public var allowZIP64 = false
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
    public var isDirectory: Bool
    public var policyUUID: String
    public var components: [Component]
    public var segmentDurations: [Double]
    public var duration: Double
    /// The archive's size (ZIP) or the sum of the entries (directory).
    public var bytes: UInt64
    public var entries: [String]
    public var warnings: [String]
}

/// Writes fps-v2 packages (draft-arkavo-tdf-fairplay-01).
public enum FPSv2Packager {
    /// The largest stored ZIP32 (§4 #6).
    public static let maximumArchiveBytes: UInt64 = 4_294_967_295

    /// Packages `input` to `output`: a stored ZIP, or a directory of the same entries when
    /// `output` names a directory (an existing one, or a path ending in `/`). On any failure
    /// nothing is left at `output`.
    public static func package(input: String, output: String, options: PackageOptions) throws(PackagerError) -> PackageSummary {
        let say = options.progress ?? { _ in }
        // Everything that can be checked without the media comes first.
        let kasKey: KASPublicKey
        do { kasKey = try KASPublicKey(pemRepresentation: options.kasPublicKeyPEM) } catch {
            throw PackagerError(.invalidArgument, "the KAS public key is not a usable PEM key: \(error.reason)")
        }
        guard case .rsa = kasKey else {
            throw PackagerError(.invalidArgument, "fps-v2 wraps keys with RSA-OAEP; the KAS public key must be RSA (2048 bits or more)")
        }
        guard let kasURL = URL(string: options.kasURL), let scheme = kasURL.scheme?.lowercased(),
              scheme == "https" || scheme == "http", kasURL.host != nil else {
            throw PackagerError(.invalidArgument, "the KAS URL must be an absolute http(s) URL")
        }
        guard let policyJSON = options.policyJSON else {
            throw PackagerError(.invalidPolicy, "fps-v2 needs a policy with body.dataAttributes (--policy FILE)")
        }
        try options.media?.validate()
        let uuid = try PackagePolicy.freshUUID()
        let preparedPolicy = try PackagePolicy.prepare(policyJSON, uuid: uuid, media: options.media)
        guard options.segmentDuration > 0, options.segmentDuration.isFinite, options.segmentDuration <= 3600 else {
            throw PackagerError(.invalidArgument, "the segment duration must be between 0 and 3600 seconds")
        }

        say("reading \(input)")
        let movie = try SourceMovie(path: input)
        let selection = try SourceSelection(movie: movie)
        say("analysing \(selection.video.samples.count) video samples")
        let video = try ComponentStream.video(movie, track: selection.video) { done, total in
            if total >= 2048, done % 2048 == 0 { say("  \(done * 100 / total)% analysed") }
        }
        let audio = selection.audio.map { ComponentStream.audio(movie, track: $0) }
        let plan = try SegmentPlan(video: selection.video, isIDR: video.isIDR, audio: selection.audio,
                                   targetDuration: options.segmentDuration)
        let streams = [video] + (audio.map { [$0] } ?? [])
        say("\(plan.segments.count) segments of about \(options.segmentDuration) s, \(streams.count) component(s)")

        // Keys, policy, key access, manifest.
        let keys = try PackageKeys(componentIDs: streams.map(\.kind.rawValue))
        let componentList = keys.components.map { TDFPolicy.Component(id: $0.id, kind: $0.id, key: $0.key) }
        let policy: Data
        do { policy = try TDFPolicy.insertComponents(componentList, intoPolicyJSON: preparedPolicy) } catch {
            throw PackagerError(.invalidPolicy, "arkavo:components could not be inserted: \(error.reason)")
        }
        let policyBase64 = Base64.encode(policy)
        var keyAccess: [KeyAccessObject] = []
        for component in keys.components {
            do {
                var object = try KeyAccessObject.wrapping(component.key, to: kasKey, kasURL: options.kasURL, kid: options.kasKID,
                                                          policyBase64: policyBase64, bindingForm: .raw)
                object.schemaVersion = nil
                keyAccess.append(object)
            } catch {
                throw PackagerError(.cryptoFailure, "wrapping the \(component.id) key failed: \(error.reason)")
            }
        }
        let manifest = FPSv2Manifest.json(policyBase64: policyBase64, keyAccess: keyAccess, iv: keys.iv)

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
        let playlists = try FPSv2Playlists(plan: plan, selection: selection, rates: rates, uuid: uuid, iv: keys.iv)

        // Entry order (§4 #4): manifest, master, then each component's playlist, init, segments.
        var entries: [(String, Int)] = [("manifest.json", manifest.count), ("master.m3u8", playlists.master.count)]
        for (c, stream) in streams.enumerated() {
            let id = stream.kind.rawValue
            entries.append(("\(id).m3u8", playlists.media[c].count))
            entries.append(("\(id)-init.mp4", inits[c].count))
            for (n, size) in sizes[c].enumerated() { entries.append(("\(id)-segment\(n).m4s", size)) }
        }
        let archiveBytes = entries.reduce(UInt64(22)) { $0 + UInt64(30 + 46 + 2 * $1.0.utf8.count + $1.1) }
        var warnings: [String] = []
        let isDirectory = Self.isDirectoryOutput(output)
        if !isDirectory, archiveBytes > maximumArchiveBytes {
            guard options.allowZIP64 else {
                throw PackagerError(.limitExceeded,
                                    "the package would be \(archiveBytes) bytes, over the ZIP32 limit of 4,294,967,295 bytes (fps-v2 §4); use --zip64 to write ZIP64, which fps-v2 readers refuse")
            }
            warnings.append("the archive is ZIP64 (over 4 GiB); fps-v2 readers refuse it")
        }

        let sink: any PackageSink = isDirectory
            ? try DirectoryPackageSink(path: output)
            : try ZIPPackageSink(path: output, zip64: !isDirectory && archiveBytes > maximumArchiveBytes)
        do throws(PackagerError) {
            try sink.add(name: "manifest.json", bytes: Array(manifest))
            try sink.add(name: "master.m3u8", bytes: Array(playlists.master))
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
                try sink.add(name: "\(id).m3u8", bytes: Array(playlists.media[c]))
                try sink.add(name: "\(id)-init.mp4", bytes: inits[c])
                for (n, segment) in plan.segments.enumerated() {
                    let bytes = try stream.bytes(segment: segment, index: n, cipher: cipher)
                    guard bytes.count == sizes[c][n] else {
                        throw PackagerError(.malformedInput, "\(id) segment \(n) changed size between planning and writing")
                    }
                    try sink.add(name: "\(id)-segment\(n).m4s", bytes: bytes)
                    if plan.segments.count >= 20, n % 10 == 0 { say("  \(id): segment \(n + 1) of \(plan.segments.count)") }
                }
            }
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
        return PackageSummary(output: output, isDirectory: isDirectory, policyUUID: uuid, components: summaries,
                              segmentDurations: durations, duration: durations.reduce(0, +),
                              bytes: isDirectory ? UInt64(entries.reduce(0) { $0 + $1.1 }) : archiveBytes,
                              entries: entries.map(\.0), warnings: warnings)
    }

    /// `-o` names a directory when it ends in `/` or is an existing directory.
    public static func isDirectoryOutput(_ path: String) -> Bool {
        if path.hasSuffix("/") { return true }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

/// Peak and average bit rates of a rendition's segments (RFC 8216 §4.3.4.2).
struct BitRates: Sendable {
    var peak: Int
    var average: Int

    init(sizes: [Int], durations: [Double]) {
        var peak = 0.0
        var total = 0.0
        var time = 0.0
        for (size, duration) in zip(sizes, durations) where duration > 0 {
            peak = max(peak, Double(size) * 8 / duration)
            total += Double(size) * 8
            time += duration
        }
        self.peak = max(1, Int(peak.rounded(.up)))
        average = max(1, Int((time > 0 ? total / time : 0).rounded(.up)))
    }
}
