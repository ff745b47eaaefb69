import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON
import MediaDRMMedia
import Testing

/// The catalog, offline-licence and playback stores' behaviour, one suite run against both
/// backends (`StateBackend`): the Redis stores give the single node's outcomes for every call,
/// with expiry judged against the `now` passed in.
@Suite struct StateStoreConformanceTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    // MARK: Catalog

    /// An entry as a store reads it back after a `put` at `t0` (its first catalogued date).
    static func entry(_ asset: String, title: String, path: String, manifest: Data? = Data("{}".utf8)) throws -> CatalogEntry {
        CatalogEntry(assetID: asset, title: title, duration: 4.04, profile: manifest == nil ? .tdfHLS : .fpsV2,
                     components: ["video", "audio"], mediaPath: try TitlePath(path),
                     policyJSON: Data(#"{"uuid":"\#(asset)"}"#.utf8), manifest: manifest,
                     publishedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    /// The delivery API's fields: a description, subtitle renditions and the posters' path read back as written;
    /// the first catalogued date is the one the entry carries, else the put's `now`.
    @Test(arguments: StateBackend.allCases)
    func theCatalogKeepsDescriptionFirstDateAndSubtitles(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let catalog = fixture.stores.catalog
            let a = "aaaaaaaa-0000-4000-8000-000000000001"
            var entry = try Self.entry(a, title: "A", path: "/a/", manifest: nil)
            entry.publishedAt = nil
            entry.description = "Über \"open\" DRM,\nin two lines."
            entry.subtitles = [CatalogSubtitle(uri: "subtitles-en.m3u8", name: "English"),
                               CatalogSubtitle(uri: "subtitles-zh.m3u8", name: "中文, \"zh\"")]
            entry.posterPath = try TitlePath("/a/")
            try catalog.put(entry, now: t0.addingTimeInterval(60))
            let stored = try #require(try catalog.entry(assetID: a))
            #expect(stored.description == entry.description && stored.subtitles == entry.subtitles)
            #expect(stored.posterPath == entry.posterPath)
            #expect(stored.publishedAt == t0.addingTimeInterval(60), "stamped with the put's now")
            // Written again with the date it carries (what `kas assets add` does): the date stays.
            try catalog.put(stored, now: t0.addingTimeInterval(3600))
            #expect(try catalog.entry(assetID: a) == stored)
            // None: an empty description and no subtitles.
            try catalog.put(try Self.entry(a, title: "A", path: "/a/", manifest: nil), now: t0)
            #expect(try catalog.entry(assetID: a)?.description == "" && (try catalog.entry(assetID: a)?.subtitles) == [])
        }
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

    /// A short media id names one asset: found by it (exact case) and by `entry(id:)` as an asset
    /// id is, refused to a second asset with the reason that says so, freed when its asset takes
    /// another id or leaves; an entry without one (catalogued before media ids) still reads.
    @Test(arguments: StateBackend.allCases)
    func aMediaIDNamesOneAsset(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let catalog = fixture.stores.catalog
            let a = "aaaaaaaa-0000-4000-8000-000000000001", b = "bbbbbbbb-0000-4000-8000-000000000002"
            let first = try #require(MediaID("Ab12cd34")), second = try #require(MediaID("zz99ZZ00"))
            var entryA = try Self.entry(a, title: "A", path: "/a.tdf")
            entryA.mediaID = first
            try catalog.put(entryA, now: t0)
            #expect(try catalog.entry(mediaID: first) == entryA)
            #expect(try catalog.entry(id: "Ab12cd34")?.assetID == a)
            #expect(try catalog.entry(id: a)?.mediaID == first)
            #expect(try catalog.entry(id: "ab12cd34") == nil, "case matters")
            #expect(try catalog.entry(id: "Ab12cd3") == nil && (try catalog.entry(id: "Ab12cd3!")) == nil)
            // A second asset with the same id: refused, nothing of it kept, the first untouched.
            var entryB = try Self.entry(b, title: "B", path: "/b.tdf")
            entryB.mediaID = first
            let refusal = #expect(throws: StoreError.self) { try catalog.put(entryB, now: t0) }
            #expect(refusal?.code == .constraint && refusal?.reason == CatalogConflict.mediaID)
            #expect(try catalog.entry(assetID: b) == nil)
            #expect(try catalog.entry(mediaID: first)?.assetID == a)
            // The same asset takes another id: the old one names nothing and is free.
            entryA.mediaID = second
            try catalog.put(entryA, now: t0)
            #expect(try catalog.entry(mediaID: first) == nil)
            try catalog.put(entryB, now: t0)
            #expect(try catalog.entry(mediaID: first)?.assetID == b)
            // Removed: its id names nothing; an entry without an id reads with none.
            #expect(try catalog.remove(assetID: a))
            #expect(try catalog.entry(mediaID: second) == nil)
            try catalog.put(try Self.entry(a, title: "A", path: "/a.tdf"), now: t0)
            #expect(try catalog.entry(assetID: a)?.mediaID == nil)
        }
    }

    @Test func mediaIDsAreEightLettersAndDigitsDrawnFromAllSixtyTwo() throws {
        for bad in ["", "Ab12cd3", "Ab12cd345", "Ab12cd3-", "Ab12cd3é", "aaaaaaaa-0000-4000-8000-000000000001"] {
            #expect(MediaID(bad) == nil, "\(bad)")
        }
        var seen = Set<UInt8>()
        for _ in 0..<200 {
            let id = try MediaID.random()
            #expect(MediaID(id.text) == id)
            seen.formUnion(id.text.utf8)
        }
        // 1,600 draws of 62 symbols: every one appears unless the draw is broken (odds of a miss
        // with a fair draw: 62 · (61/62)^1600, below 10^-9).
        #expect(seen.count == 62)
    }

    /// A live title's event is kept with its entry, an open end included, and a VOD title has none.
    @Test(arguments: StateBackend.allCases)
    func aLiveEntryKeepsItsEvent(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let catalog = fixture.stores.catalog
            let live = "dddddddd-0000-4000-8000-000000000004", open = "eeeeeeee-0000-4000-8000-000000000005"
            var entry = try Self.entry(live, title: "Final", path: "/final/", manifest: nil)
            entry.live = CatalogLiveEvent(startsAt: t0, endsAt: t0.addingTimeInterval(9000), blackoutRegions: ["DE", "AT"])
            var openEnded = try Self.entry(open, title: "Channel", path: "/channel/", manifest: nil)
            openEnded.live = CatalogLiveEvent()
            try catalog.put(entry, now: t0)
            try catalog.put(openEnded, now: t0)
            #expect(try catalog.entry(assetID: live) == entry)
            #expect(try catalog.entry(assetID: open)?.live == CatalogLiveEvent())
            #expect(try catalog.entries().map(\.live) == [openEnded.live, entry.live])
            try catalog.put(try Self.entry(live, title: "Final", path: "/final/", manifest: nil), now: t0)
            #expect(try catalog.entry(assetID: live)?.live == nil)
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

    func playback(_ id: String, _ viewer: Identity, expires: TimeInterval = 100, asset: String = "asset-1") -> PlaybackRecord {
        PlaybackRecord(id: id, identity: viewer, assetID: asset, drmSystem: .fairplay, expires: t0.addingTimeInterval(expires))
    }

    @Test(arguments: StateBackend.allCases)
    func aPlaybackLivesUntilItsEndOrItsRelease(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let playbacks = fixture.stores.playbacks
            let viewer = Self.identity("subject-\(UUID().uuidString)")
            let playback = playback("pb-1-aaaaaaaaaaaaaaaa", viewer)
            #expect(try playbacks.insert(playback, maxLivePerViewer: 16, now: t0) == .inserted)
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
            #expect(released?.playback.released == true && released?.playback.assetID == "asset-1")
            #expect(released?.endedSessions == 0)
            #expect(try playbacks.release(playback.id, viewer: viewer.storeKey, now: t0.addingTimeInterval(10)) == nil)
            try playbacks.extend(playback.id, to: t0.addingTimeInterval(900), now: t0)
            #expect(try playbacks.live(playback.id, now: t0.addingTimeInterval(11)) == nil)
            // An expired playback is not released.
            let short = self.playback("pb-2-bbbbbbbbbbbbbbbb", viewer, expires: 5)
            _ = try playbacks.insert(short, maxLivePerViewer: 16, now: t0)
            #expect(try playbacks.release(short.id, viewer: viewer.storeKey, now: t0.addingTimeInterval(5)) == nil)
            // A removed playback is gone.
            let removed = self.playback("pb-3-cccccccccccccccc", viewer)
            _ = try playbacks.insert(removed, maxLivePerViewer: 16, now: t0)
            try playbacks.remove(removed.id)
            #expect(try playbacks.live(removed.id, now: t0) == nil)
            // Pruning deletes what ended before the cutoff (the short one expired at 5 s), not
            // what ended after it (the first, released at 10 s).
            try playbacks.prune(olderThan: t0.addingTimeInterval(6))
            #expect(try fixture.storedPlaybacks() == [MediaSessionID.hash(playback.id)])
        }
    }

    /// Releasing a playback ends its live media sessions in the same step, and only its own.
    @Test(arguments: StateBackend.allCases)
    func releasingAPlaybackEndsItsSessionsInOneStep(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let viewer = Self.identity("releaser-\(UUID().uuidString)")
            let id = "pb-release-0123456789"
            _ = try fixture.stores.playbacks.insert(playback(id, viewer), maxLivePerViewer: 16, now: t0)
            func start(_ session: String, playback: String) throws {
                var new = NewMediaSession(idHash: session, viewer: viewer.storeKey, asset: "asset-1", protocol: .fairplay,
                                          playback: playback, timeout: 180)
                new.component = session
                guard case .started = try fixture.stores.media.startSession(new, limit: 1, maxLiveSessionsPerViewer: 10, now: t0)
                else { Issue.record("\(session) not started"); return }
            }
            try start("video", playback: MediaSessionID.playbackKey(clientPlaybackID: id))
            try start("audio", playback: MediaSessionID.playbackKey(clientPlaybackID: id))
            let released = try fixture.stores.playbacks.release(id, viewer: viewer.storeKey, now: t0.addingTimeInterval(1))
            #expect(released?.endedSessions == 2)
            #expect(try fixture.stores.media.session(idHash: "video")?.ended == t0.addingTimeInterval(1))
            #expect(try fixture.stores.media.liveSessionCount(now: t0.addingTimeInterval(1)) == 0)
            // Its stream slot (a limit of 1) is free for the next playback at once.
            try start("next", playback: "another")
        }
    }

    /// Issue 28: a viewer holds at most `maxLivePerViewer` live playbacks; released and expired
    /// ones do not count, and other viewers are not limited by it.
    @Test(arguments: StateBackend.allCases)
    func aViewersLivePlaybacksAreCapped(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let playbacks = fixture.stores.playbacks
            let alice = Self.identity("alice-\(UUID().uuidString)"), bob = Self.identity("bob-\(UUID().uuidString)")
            #expect(try playbacks.insert(playback("a1-0123456789", alice), maxLivePerViewer: 2, now: t0) == .inserted)
            #expect(try playbacks.insert(playback("a2-0123456789", alice, expires: 10), maxLivePerViewer: 2, now: t0) == .inserted)
            #expect(try playbacks.insert(playback("a3-0123456789", alice), maxLivePerViewer: 2, now: t0) == .tooManyPlaybacks)
            #expect(try playbacks.live("a3-0123456789", now: t0) == nil)
            #expect(try playbacks.insert(playback("b1-0123456789", bob), maxLivePerViewer: 2, now: t0) == .inserted)
            _ = try playbacks.release("a1-0123456789", viewer: alice.storeKey, now: t0)
            // A released playback's id is not taken again (the delivery API's processSpcUrl names its id before the start).
            #expect(try playbacks.insert(playback("a1-0123456789", alice), maxLivePerViewer: 2, now: t0) == .duplicate)
            #expect(try playbacks.live("a1-0123456789", now: t0) == nil)
            #expect(try playbacks.insert(playback("a3-0123456789", alice), maxLivePerViewer: 2, now: t0) == .inserted)
            #expect(try playbacks.insert(playback("a4-0123456789", alice), maxLivePerViewer: 2, now: t0) == .tooManyPlaybacks)
            #expect(try playbacks.insert(playback("a4-0123456789", alice), maxLivePerViewer: 2,
                                         now: t0.addingTimeInterval(10)) == .inserted, "a2 expired")
        }
    }

    /// Issue 28: the record bounds on playbacks. A viewer keeps its share of ended playbacks
    /// (the oldest go first); a full store drops the oldest ended playback of anyone, and refuses
    /// when every stored playback is live, never dropping one.
    @Test(arguments: StateBackend.allCases)
    func playbacksKeepWithinTheirBounds(_ backend: StateBackend) throws {
        var settings = KASConfiguration.StoreSettings()
        settings.maxEndedRecordsPerViewer = 1
        settings.maxPlaybacks = 4
        try StateStoreFixture.with(backend, settings: settings) { fixture throws in
            let playbacks = fixture.stores.playbacks
            let flooder = Self.identity("flooder-\(UUID().uuidString)")
            func hashes(_ ids: String...) -> Set<String> { Set(ids.map { MediaSessionID.hash($0 + "-0123456789") }) }
            func insert(_ id: String, _ viewer: Identity, at seconds: TimeInterval = 0) throws -> PlaybackInsertOutcome {
                try playbacks.insert(PlaybackRecord(id: id + "-0123456789", identity: viewer, assetID: "asset-1", drmSystem: .tdf,
                                                    expires: t0.addingTimeInterval(1000)),
                                     maxLivePerViewer: 16, now: t0.addingTimeInterval(seconds))
            }
            // The flooder starts and releases: each start keeps one ended playback of its own.
            for (index, id) in ["f1", "f2", "f3"].enumerated() {
                #expect(try insert(id, flooder, at: Double(index)) == .inserted)
                _ = try playbacks.release(id + "-0123456789", viewer: flooder.storeKey, now: t0.addingTimeInterval(Double(index) + 0.5))
            }
            #expect(try fixture.storedPlaybacks() == hashes("f2", "f3"))
            // Two other viewers' live playbacks fill the store; the next start drops f2, the oldest ended.
            #expect(try insert("v1", Self.identity("v1-\(UUID().uuidString)"), at: 4) == .inserted)
            #expect(try insert("v2", Self.identity("v2-\(UUID().uuidString)"), at: 5) == .inserted)
            #expect(try fixture.storedPlaybacks() == hashes("f2", "f3", "v1", "v2"))
            #expect(try insert("v3", Self.identity("v3-\(UUID().uuidString)"), at: 6) == .inserted)
            #expect(try fixture.storedPlaybacks() == hashes("f3", "v1", "v2", "v3"))
            #expect(try insert("v4", Self.identity("v4-\(UUID().uuidString)"), at: 7) == .inserted)
            // Every stored playback is live: a start is refused, and every live one stays.
            #expect(try insert("v5", Self.identity("v5-\(UUID().uuidString)"), at: 8) == .storeFull)
            #expect(try fixture.storedPlaybacks() == hashes("v1", "v2", "v3", "v4"))
            for id in ["v1", "v2", "v3", "v4"] {
                #expect(try playbacks.live(id + "-0123456789", now: t0.addingTimeInterval(8)) != nil)
            }
        }
    }

    /// A single node's playbacks and its licence URL key outlive a restart (SQLite and the key
    /// file in the data directory), as Redis's outlive a node's.
    @Test(arguments: StateBackend.allCases)
    func playbacksAndTheLicenceURLKeyOutliveARestart(_ backend: StateBackend) throws {
        try StateStoreFixture.with(backend) { fixture throws in
            let viewer = Self.identity("restart-\(UUID().uuidString)")
            let kept = playback("pb-kept-0123456789", viewer, expires: 3600)
            _ = try fixture.stores.playbacks.insert(kept, maxLivePerViewer: 16, now: t0)
            let key = try fixture.stores.playbacks.licenseURLKey()
            try fixture.reopen()
            #expect(try fixture.stores.playbacks.live(kept.id, now: t0.addingTimeInterval(60)) == kept)
            #expect(try fixture.stores.playbacks.licenseURLKey() == key)
            if backend == .local {
                #expect(SecureFiles.mode(of: fixture.layout.licenseURLKey) == 0o600)
                // Neither the subject nor the playback id is in the file.
                let file = try Data(contentsOf: URL(fileURLWithPath: fixture.layout.mediaStore))
                    + ((try? Data(contentsOf: URL(fileURLWithPath: fixture.layout.mediaStore + "-wal"))) ?? Data())
                #expect(file.range(of: Data(viewer.subject.utf8)) == nil)
                #expect(file.range(of: Data(kept.id.utf8)) == nil)
            }
        }
    }
}
