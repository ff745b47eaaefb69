// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMHLS
import MediaDRMMP4
import MediaDRMTDF
import MediaDRMMedia

/// A package that passed every admission check, with what a player needs next: the manifest
/// bytes exactly as packaged (the key request's `tdfManifest`, §10.2), the identity (§9.2, §9.3),
/// each component's key access, playlist and track encryption, and read access to the entries.
public final class FPSv2AdmittedPackage: Sendable {
    public struct Component: Sendable {
        public let kind: MediaComponentKind
        /// The key access that wraps this component's key (`keyAccess[i]` for `arkavo:components[i]`).
        public let keyAccess: FPSv2Manifest.KeyAccess
        public let keyBinding: String
        public let playlist: HLSMediaPlaylist
        /// The init's `tenc` KID; not checked by admission (§8.3), useful to a decryptor.
        public let defaultKID: Data
        /// 1 to 7 for audio (§8.2 #8); nil for video.
        public let channelConfiguration: Int?

        public var id: String { kind.id }
        /// `skd://<policy uuid>/<id>`.
        public let keyURI: String
        /// The FairPlay content identifier, `<policy uuid>/<id>` (§9.3).
        public let contentIdentifier: String
    }

    public let manifest: FPSv2Manifest
    /// `manifest.json` exactly as stored; never re-serialized (§10.2).
    public let manifestBytes: Data
    /// The decoded policy (uuid, attributes, components, classification, media rules).
    public let policy: TDFPolicy
    /// The asset id: the policy uuid (§9.2).
    public let policyUUID: String
    /// `method.iv`, the constant IV of every component (§5.4).
    public let iv: Data
    /// Readable, or nil when the options did not require it and it was unreadable.
    public let classification: FPSv2Classification?
    public let master: HLSMasterPlaylist
    /// In the order of `arkavo:components`: video, then audio when present.
    public let components: [Component]
    public let segmentCount: Int
    public let report: AdmissionReport
    let store: EntryStore
    let limits: FPSv2Limits

    init(manifest: FPSv2Manifest, manifestBytes: Data, policy: TDFPolicy, policyUUID: String, iv: Data,
         classification: FPSv2Classification?, master: HLSMasterPlaylist, components: [Component], segmentCount: Int,
         report: AdmissionReport, store: EntryStore, limits: FPSv2Limits) {
        self.manifest = manifest
        self.manifestBytes = manifestBytes
        self.policy = policy
        self.policyUUID = policyUUID
        self.iv = iv
        self.classification = classification
        self.master = master
        self.components = components
        self.segmentCount = segmentCount
        self.report = report
        self.store = store
        self.limits = limits
    }

    public func component(_ kind: MediaComponentKind) -> Component? {
        components.first { $0.kind == kind }
    }

    /// The duration: the sum of the video playlist's EXTINF values (§9.4).
    public var duration: Double {
        component(.video)?.playlist.duration ?? 0
    }

    /// The names of every entry of the package, in the order a writer stores them.
    public var entryNames: [FPSv2EntryName] {
        FPSv2EntryName.packageEntries(components: components.map(\.id), segmentCount: segmentCount)
    }

    /// An entry's bytes (CRC-32 verified for an archive). `manifest.json` is readable here but a
    /// presentation must never serve it (§11 #4).
    public func read(_ name: FPSv2EntryName) throws(FPSv2Error) -> Data {
        guard entryNames.contains(name) else { throw FPSv2Error(.notFound, "the package has no entry \(name.name)") }
        let bound = name.isMetadata ? UInt64(limits.maxManifestBytes) : limits.maxExpandedBytes
        return try store.read(name.name, maxBytes: bound)
    }

    /// The bytes of the archive file that hold an entry (stored, so exactly the entry's bytes),
    /// from its local header checked against the central directory: what an HTTP Range read or
    /// a byte-range view of the file addresses (docs/formats.md "Views of fps-v2"). Nil for a
    /// directory package, whose entries are files of their own.
    public func storedRange(of name: FPSv2EntryName) throws(FPSv2Error) -> Range<UInt64>? {
        guard entryNames.contains(name) else { throw FPSv2Error(.notFound, "the package has no entry \(name.name)") }
        return try store.storedRange(name.name)
    }

    /// The stored size of an entry, nil when the package has none.
    public func size(of name: FPSv2EntryName) -> UInt64? {
        guard entryNames.contains(name) else { return nil }
        return store.size(of: name.name)
    }
}

extension AdmissionRun {
    /// The admitted package, once every check passed.
    func admittedPackage(report: AdmissionReport) -> FPSv2AdmittedPackage? {
        guard let manifest, let manifestBytes, let policyUUID, let iv, let master, let store,
              let policyObject, let tdfPolicy = try? TDFPolicy(json: .object(policyObject)) else { return nil }
        var list: [FPSv2AdmittedPackage.Component] = []
        let entries = componentList?.entries ?? []
        for (index, kind) in components.enumerated() {
            guard index < manifest.keyAccess.count, index < entries.count, let playlist = mediaPlaylists[kind],
                  let tenc = initTrackEncryption[kind] else { return nil }
            let keyURI = SKDKeyURI(policyUUID: policyUUID, component: kind).text
            list.append(FPSv2AdmittedPackage.Component(
                kind: kind, keyAccess: manifest.keyAccess[index], keyBinding: entries[index].keyBinding, playlist: playlist,
                defaultKID: Data(tenc.defaultKID), channelConfiguration: kind == .audio ? audioChannelConfiguration : nil,
                keyURI: keyURI, contentIdentifier: "\(policyUUID)/\(kind.id)"))
        }
        return FPSv2AdmittedPackage(manifest: manifest, manifestBytes: manifestBytes, policy: tdfPolicy, policyUUID: policyUUID,
                                    iv: iv, classification: classification, master: master, components: list,
                                    segmentCount: segmentCount, report: report, store: store, limits: options.limits)
    }
}
