import Foundation
import MediaDRMCrypto
import MediaDRMFPSv2
import MediaDRMOffline

/// Plays a downloaded title with no network (docs/offline.md): the sealed records, the clock and
/// the licence (`OfflinePlayChecks`: signature with the pinned keys, device, asset, `exp`,
/// playback window), the stored package against the digest taken when it was
/// verified, fps-v2 admission with the title's key service as the only accepted one; then the
/// keys are unwrapped with the device key, in memory only, and the package is decrypted and
/// muxed exactly as online playback does. The first offline play is recorded before the first
/// clear byte. Output stops when the licence expires or the window closes during the play.
public struct OfflinePlayback: Sendable {
    public let library: OfflineLibrary
    public let titleName: String
    private let progress: (@Sendable (PlaybackEvent) -> Void)?
    private let clock: any PlaybackClock

    public init(library: OfflineLibrary, titleName: String, clock: any PlaybackClock = SystemPlaybackClock(),
                progress: (@Sendable (PlaybackEvent) -> Void)? = nil) {
        self.library = library
        self.titleName = titleName
        self.clock = clock
        self.progress = progress
    }

    /// Everything checked and the keys in hand; no byte of output yet.
    struct Prepared: @unchecked Sendable {
        let package: FPSv2AdmittedPackage
        let inits: [ClearInitSegment]
        let decryptors: [FragmentDecryptor]
        /// Seconds the keys may still be used (until `exp` or the window's end).
        let usableSeconds: Int64
    }

    /// `now`: the wall clock in seconds since the epoch (tests pass a set one).
    public func play(to output: any MediaOutput, now: Int64) async throws(OfflineError) {
        let began = clock.now()
        let library = self.library, name = titleName, progress = self.progress
        let prepared = try await Blocking.run(orFail: .playback) { () throws(OfflineError) -> Prepared in
            try Self.prepare(library: library, name: name, now: now, progress: progress)
        }
        let validity = KeyValidity(clock: clock)
        let ends = clock.now() + Double(prepared.usableSeconds)
        for component in prepared.package.components { validity.setLeaseEnd(component.id, ends) }
        do {
            try await PlaybackSession.stream(
                inits: prepared.inits, decryptors: prepared.decryptors,
                readers: FPSv2Segments(package: prepared.package, components: prepared.package.components.map(\.id)),
                validity: validity, output: output, began: began, clock: clock, progress: progress, stopped: { false })
        } catch {
            throw OfflineError(.playback, error.reason, playback: error)
        }
    }

    static func prepare(library: OfflineLibrary, name: String, now: Int64,
                        progress: (@Sendable (PlaybackEvent) -> Void)?) throws(OfflineError) -> Prepared {
        let checks = try OfflinePlayChecks(library: library, name: name, now: now)
        let title = checks.title

        let path = library.packagePath(name)
        guard LibraryFiles.size(path) == title.packageBytes,
              try LibraryFiles.sha256Hex(ofFile: path) == title.packageSHA256 else {
            throw OfflineError(.packageChanged, "the stored package is not the one downloaded and verified: "
                               + "delete the title and download it again")
        }
        let presentation: PlaybackSession.Presentation
        do {
            presentation = try PlaybackSession.admit(try FPSv2Package(archivePath: path), keyServiceURL: title.keyService, progress)
        } catch let error as PlaybackError {
            throw OfflineError(.packageChanged, "the stored package is refused: \(error.reason)")
        } catch {
            throw OfflineError(.packageChanged, "the stored package could not be opened: delete the title and download it again")
        }
        guard case .fpsV2(let package, let inits) = presentation else {
            throw OfflineError(.packageChanged, "the stored package is not an fps-v2 package")
        }
        let ids = package.components.map(\.id)
        let keys = try checks.license.contentKeys(deviceKey: checks.deviceKey,
                                                  components: package.components.map { ($0.kind, $0.keyBinding) })
        var decryptors: [FragmentDecryptor] = []
        for (index, id) in ids.enumerated() {
            guard let key = keys[id] else { throw OfflineError(.licenseAsset, "the licence has no key for \(id)") }
            do {
                decryptors.append(try FragmentDecryptor(initSegment: inits[index], key: key))
            } catch {
                throw OfflineError(.licenseAsset, "the licence's \(id) key does not fit the package's \(id) track")
            }
        }
        let first = try checks.recordFirstPlay(in: library)
        return Prepared(package: package, inits: inits, decryptors: decryptors,
                        usableSeconds: checks.usableSeconds(firstPlayedAt: first))
    }
}
