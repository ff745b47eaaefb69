import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON
import Testing

/// The catalog, offline-licence and playback stores' behaviour, one suite run against both
/// backends (`StateBackend`): the Redis stores give the single node's outcomes for every call,
/// with expiry judged against the `now` passed in.
@Suite struct StateStoreConformanceTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    // MARK: Catalog

    static func entry(_ asset: String, title: String, path: String, manifest: Data? = Data("{}".utf8)) throws -> CatalogEntry {
        CatalogEntry(assetID: asset, title: title, duration: 4.04, profile: manifest == nil ? .tdfHLS : .fpsV2,
                     components: ["video", "audio"], mediaPath: try TitlePath(path),
                     policyJSON: Data(#"{"uuid":"\#(asset)"}"#.utf8), manifest: manifest)
    }

    @Test(arguments: StateBackend.allCases)
    func theCatalogKeepsOneAssetPerMediaPath(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let catalog = fixture.stores.catalog
            let a = "aaaaaaaa-0000-4000-8000-000000000001", b = "bbbbbbbb-0000-4000-8000-000000000002"
            let c = "cccccccc-0000-4000-8000-000000000003"
            try catalog.put(try Self.entry(a, title: "Zebra", path: "/a.tdf"), now: t0)
            try catalog.put(try Self.entry(b, title: "Ant", path: "/b", manifest: nil), now: t0)
            #expect(try catalog.entries().map(\.assetID) == [b, a], "by title")
            #expect(try catalog.entry(assetID: a.uppercased()) == (try Self.entry(a, title: "Zebra", path: "/a.tdf")))
            #expect(try catalog.entry(assetID: b)?.manifest == nil)
            // Another asset at a served path is refused, and nothing of it is kept.
            #expect(throws: StoreError(.constraint, "")) { try catalog.put(try Self.entry(c, title: "C", path: "/a.tdf"), now: t0) }
            #expect(try catalog.entry(assetID: c) == nil)
            // Replacing an asset moves its path: the old one is free again.
            try catalog.put(try Self.entry(a, title: "Zebra 2", path: "/moved.tdf"), now: t0)
            try catalog.put(try Self.entry(c, title: "C", path: "/a.tdf"), now: t0)
            #expect(try catalog.entries().map(\.title) == ["Ant", "C", "Zebra 2"])
            #expect(try catalog.remove(assetID: a) == true)
            #expect(try catalog.remove(assetID: a) == false)
            #expect(try catalog.entry(assetID: a) == nil)
            // A removed asset's path is free.
            try catalog.put(try Self.entry(b, title: "Ant", path: "/moved.tdf"), now: t0)
            #expect(try catalog.entries().map(\.mediaPath.prefix) == ["/moved.tdf", "/a.tdf"])
        }
    }

    // MARK: Offline licences

    func licenseRecord(_ id: String, viewer: String = "viewer-1", device: String, expires: TimeInterval = 3600,
                 kid: String = "kid-1") -> OfflineLicenseRecord {
        OfflineLicenseRecord(id: id, viewer: viewer, asset: "asset-1", playKey: "asset-1", deviceThumbprint: device,
                             deviceName: device == "d1" ? "Phone" : nil, signingKid: kid, issued: t0,
                             expires: t0.addingTimeInterval(expires), rentalEnds: nil, rules: #"{"allowOffline":true}"#,
                             dataAttributes: "[]", dissem: "[]", keys: "[]", released: nil, firstPlayed: nil)
    }

    @Test(arguments: StateBackend.allCases)
    func issuingCountsTheViewersLiveDevices(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let offline = fixture.stores.offline
            #expect(try offline.issue(licenseRecord("l1", device: "d1"), maxDevices: 2, now: t0) == .issued(replaced: 0))
            #expect(try offline.issue(licenseRecord("l2", device: "d2"), maxDevices: 2, now: t0) == .issued(replaced: 0))
            #expect(try offline.issue(licenseRecord("l3", device: "d3"), maxDevices: 2, now: t0) == .deviceLimit)
            #expect(try offline.license(id: "l3") == nil)
            // The same device again replaces its live licence.
            #expect(try offline.issue(licenseRecord("l4", device: "d1"), maxDevices: 2, now: t0) == .issued(replaced: 1))
            #expect(try offline.license(id: "l1")?.released == t0)
            // Another viewer has devices of their own.
            #expect(try offline.issue(licenseRecord("l5", viewer: "viewer-2", device: "d9"), maxDevices: 1, now: t0) == .issued(replaced: 0))
            // A released licence frees its device; an expired one counts no more.
            #expect(try offline.release(id: "l2", viewer: "viewer-1", now: t0) == true)
            #expect(try offline.issue(licenseRecord("l6", device: "d3", expires: 60), maxDevices: 2, now: t0) == .issued(replaced: 0))
            #expect(try offline.issue(licenseRecord("l7", device: "d4"), maxDevices: 2, now: t0) == .deviceLimit)
            #expect(try offline.issue(licenseRecord("l7", device: "d4"), maxDevices: 2, now: t0.addingTimeInterval(60)) == .issued(replaced: 0))
            #expect(try offline.license(id: "l4") == licenseRecord("l4", device: "d1"))
        }
    }

    @Test(arguments: StateBackend.allCases)
    func renewReleaseFirstPlayAndTheLiveSigningKeys(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let offline = fixture.stores.offline
            _ = try offline.issue(licenseRecord("l1", device: "d1", expires: 100, kid: "old"), maxDevices: 5, now: t0)
            _ = try offline.issue(licenseRecord("l2", device: "d2", expires: 100, kid: "old"), maxDevices: 5, now: t0)
            _ = try offline.issue(licenseRecord("l3", device: "d3", expires: 50, kid: "gone"), maxDevices: 5, now: t0)
            #expect(try offline.liveSigningKids(now: t0) == ["old", "gone"])
            #expect(try offline.liveSigningKids(now: t0.addingTimeInterval(50)) == ["old"])

            var renewed = licenseRecord("l1", device: "d1", kid: "new")
            renewed.issued = t0.addingTimeInterval(10)
            renewed.expires = t0.addingTimeInterval(500)
            renewed.rentalEnds = t0.addingTimeInterval(400)
            #expect(try offline.renew(renewed, now: t0.addingTimeInterval(10)) == true)
            let stored = try offline.license(id: "l1")
            #expect(stored?.signingKid == "new" && stored?.expires == renewed.expires && stored?.rentalEnds == renewed.rentalEnds)
            #expect(try offline.liveSigningKids(now: t0.addingTimeInterval(200)) == ["new"])
            // An expired licence is not renewed.
            #expect(try offline.renew(licenseRecord("l3", device: "d3", kid: "new"), now: t0.addingTimeInterval(50)) == false)

            // Only the owner releases, once; a released licence is not renewed and signs nothing live.
            #expect(try offline.release(id: "l2", viewer: "viewer-2", now: t0) == false)
            #expect(try offline.release(id: "l2", viewer: "viewer-1", now: t0.addingTimeInterval(20)) == true)
            #expect(try offline.release(id: "l2", viewer: "viewer-1", now: t0.addingTimeInterval(30)) == false)
            #expect(try offline.license(id: "l2")?.released == t0.addingTimeInterval(20))
            #expect(try offline.renew(licenseRecord("l2", device: "d2"), now: t0.addingTimeInterval(30)) == false)
            #expect(try offline.liveSigningKids(now: t0.addingTimeInterval(30)) == ["new", "gone"])
            #expect(try offline.release(id: "unknown", viewer: "viewer-1", now: t0) == false)

            // The earliest reported first play is kept.
            try offline.recordFirstPlay(id: "l1", at: t0.addingTimeInterval(40))
            try offline.recordFirstPlay(id: "l1", at: t0.addingTimeInterval(30))
            try offline.recordFirstPlay(id: "l1", at: t0.addingTimeInterval(35))
            try offline.recordFirstPlay(id: "unknown", at: t0)
            #expect(try offline.license(id: "l1")?.firstPlayed == t0.addingTimeInterval(30))
            #expect(try offline.license(id: "unknown") == nil)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func everyLicenceIsExportedAndImportedAsIs(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { source throws in
            _ = try source.stores.offline.issue(licenseRecord("l1", device: "d1"), maxDevices: 5, now: t0)
            _ = try source.stores.offline.issue(licenseRecord("l2", device: "d2", kid: "k2"), maxDevices: 5, now: t0)
            _ = try source.stores.offline.release(id: "l2", viewer: "viewer-1", now: t0.addingTimeInterval(5))
            try source.stores.offline.recordFirstPlay(id: "l1", at: t0.addingTimeInterval(3))
            let exported = try source.stores.offline.allLicenses()
            #expect(exported.map(\.id) == ["l1", "l2"])
            try StateStoreFixture.with(backend) { target throws in
                for record in exported { try target.stores.offline.importLicense(record) }
                for record in exported { try target.stores.offline.importLicense(record) }
                #expect(try target.stores.offline.allLicenses() == exported)
                // Imported licences count and sign as issued ones do.
                #expect(try target.stores.offline.liveSigningKids(now: t0) == ["kid-1"])
                #expect(try target.stores.offline.issue(licenseRecord("l3", device: "d3"), maxDevices: 1, now: t0) == .deviceLimit)
            }
        }
    }

    // MARK: Playbacks

    static func identity(_ subject: String) -> Identity {
        Identity(subject: subject, issuer: "https://issuer.example", entitlements: ["https://example.com/attr/tier/value/gold"],
                 rentals: [UUID(uuidString: "8f6a3c2e-0000-4000-8000-00000000beef")!: 1_799_999_000],
                 claims: JSONObject([("sub", .string(subject)), ("nested", .object(JSONObject([("n", .number(1.5))])))]),
                 expiresAt: Date(timeIntervalSince1970: 1_800_000_600.25))
    }

    @Test(arguments: StateBackend.allCases)
    func aPlaybackLivesUntilItsEndOrItsRelease(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let playbacks = fixture.stores.playbacks
            let viewer = Self.identity("subject-\(UUID().uuidString)")
            let playback = PlaybackRecord(id: "pb-1-aaaaaaaaaaaaaaaa", identity: viewer, assetID: "asset-1", drmSystem: .fairplay,
                                          expires: t0.addingTimeInterval(100))
            try playbacks.insert(playback, now: t0)
            #expect(try playbacks.live(playback.id, now: t0) == playback, "everything the licence URL needs round-trips")
            #expect(try playbacks.live(playback.id, now: t0.addingTimeInterval(100)) == nil)
            #expect(try playbacks.live("pb-unknown", now: t0) == nil)
            // Extending never shortens.
            try playbacks.extend(playback.id, to: t0.addingTimeInterval(50), now: t0)
            try playbacks.extend(playback.id, to: t0.addingTimeInterval(200), now: t0)
            #expect(try playbacks.live(playback.id, now: t0.addingTimeInterval(150))?.expires == t0.addingTimeInterval(200))
            // Only its viewer releases it, once, while it is live; then it is gone for good.
            #expect(try playbacks.release(playback.id, viewer: Identity.viewer("someone else").storeKey, now: t0) == nil)
            let released = try playbacks.release(playback.id, viewer: viewer.storeKey, now: t0.addingTimeInterval(10))
            #expect(released?.released == true && released?.assetID == "asset-1")
            #expect(try playbacks.release(playback.id, viewer: viewer.storeKey, now: t0.addingTimeInterval(10)) == nil)
            try playbacks.extend(playback.id, to: t0.addingTimeInterval(900), now: t0)
            #expect(try playbacks.live(playback.id, now: t0.addingTimeInterval(11)) == nil)
            // An expired playback is not released.
            let short = PlaybackRecord(id: "pb-2-bbbbbbbbbbbbbbbb", identity: viewer, assetID: "asset-1", drmSystem: .tdf,
                                       expires: t0.addingTimeInterval(5))
            try playbacks.insert(short, now: t0)
            #expect(try playbacks.release(short.id, viewer: viewer.storeKey, now: t0.addingTimeInterval(5)) == nil)
        }
    }
}
