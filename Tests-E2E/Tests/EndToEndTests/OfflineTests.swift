import Foundation
import MediaDRMJOSE
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// Offline viewing end to end (docs/offline.md): `player download` from the shared origin with
/// a licence from the shared KAS, then `player play --title` in a network namespace with no
/// usable interface (`unshare -n`), compared with the source per track; an interrupted download
/// resumed; and every offline refusal, each with its reason and no clear byte. Tests change
/// copies of one downloaded library, never the original.
@Suite struct OfflineTests {
    static let licenseSeconds: Int64 = 86_400
    static let windowSeconds: Int64 = 7_200
    static let rules = Stage.everydayRules + [
        "--offline", "--offline-license-duration", "\(licenseSeconds)",
        "--offline-playback-window", "\(windowSeconds)", "--max-offline-devices", "16",
    ]

    struct Base: @unchecked Sendable {
        let clip: Clips.Clip
        let package: Publisher.Package
        let url: String
        let viewer: OfflineViewer
        let download: ProcessResult
    }

    /// One package and one download for the suite.
    static let base: Result<Base, TestFailure> = {
        do {
            let clip = try Clips.av()
            let (kas, _) = try Stage.start()
            let (package, url) = try Stage.publish(clip, .fpsV2, mediaFlags: rules)
            let viewer = try OfflineViewer(kas: kas, subject: "offline-viewer")
            let download = try viewer.download(url, name: "talk")
            return .success(Base(clip: clip, package: package, url: url, viewer: viewer, download: download))
        } catch {
            return .failure(TestFailure("offline base: \(error)"))
        }
    }()

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// A time as `player library --json` writes it.
    static func date(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test func downloadThenPlayWithNoNetworkMatchesTheSource() throws {
        let base = try Self.base.get()
        #expect(base.download.status == 0, "\(base.download.stderr)")
        // Admission, transfer, verification, then the licence; the result last.
        let events = OfflineViewer.events(base.download.stderr)
        let order = ["admitted", "request", "progress", "verified", "licensed", "result"].compactMap { events.firstIndex(of: $0) }
        #expect(order.count == 6 && order == order.sorted(), "\(events)")
        let record = try base.viewer.record("talk")
        #expect(record["viewer"] as? String == "offline-viewer")
        #expect(record["state"] as? String == "licensed")
        #expect(record["assetId"] as? String == base.package.assetID)

        // The library holds the package byte for byte, and never the token or clear media.
        let stored = try #require(FileManager.default.contents(atPath: base.viewer.library + "/titles/talk/package.tdf"))
        #expect(stored == FileManager.default.contents(atPath: base.package.path))
        for file in try FileManager.default.subpathsOfDirectory(atPath: base.viewer.library) {
            let data = FileManager.default.contents(atPath: base.viewer.library + "/" + file) ?? Data()
            #expect(data.range(of: Data(base.viewer.token.utf8)) == nil, "the token is in \(file)")
        }

        // The namespace really has no network: online play of the same package fails there.
        let online = try run("/usr/bin/unshare", ["-n", try Tools.player, "play", base.url, "--kas", base.viewer.kas.publicURL,
                                                  "--ca", base.viewer.kas.caFile, "--token", base.viewer.token,
                                                  "--output", Scratch.directory("no-network") + "/clear.mp4"])
        #expect(online.status == 1, "\(online.stderr)")

        let viewer = try base.viewer.copy()
        let (result, media) = try viewer.play("talk")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try SourceMatch.check(try #require(media), against: base.clip).isEmpty)
        // The first offline play is recorded, sealed: not in the plain title record.
        #expect(try viewer.listed("talk")["firstPlayedAt"] as? String != nil)
        #expect(try viewer.record("talk")["firstPlayedAt"] == nil && viewer.record("talk")["signingKeys"] == nil)

        let listing = try run(try Tools.player, ["library", "--library", viewer.library, "--json"])
        #expect(listing.status == 0)
        #expect(listing.stdoutText.contains(#""name":"talk""#) && listing.stdoutText.contains(#""state":"licensed""#),
                "\(listing.stdoutText)")
    }

    @Test func interruptedDownloadResumesAndMatches() throws {
        let base = try Self.base.get()
        let (_, origin) = try Stage.start()
        let dropping = try RangeOrigin(root: origin.root)
        defer { dropping.stop() }
        let viewer = try OfflineViewer(kas: base.viewer.kas, subject: "offline-resume")
        let name = URL(fileURLWithPath: base.package.path).lastPathComponent
        let size = try #require(FileManager.default.attributesOfItem(atPath: base.package.path)[.size] as? Int)
        let result = try viewer.download(dropping.url("/__dropafter/\(size / 3)/\(name)"), name: "resumed")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(OfflineViewer.events(result.stderr).contains("interrupted"), "\(result.stderr)")
        let stored = FileManager.default.contents(atPath: viewer.library + "/titles/resumed/package.tdf")
        #expect(stored == FileManager.default.contents(atPath: base.package.path))
        // The second request resumed where the first stopped, on the same entity tag.
        let gets = try dropping.getLog().filter { $0.path.hasPrefix("/__dropafter/") && $0.range?.hasSuffix("-") == true
            && $0.range?.hasPrefix("bytes=-") == false }
        #expect(gets.count == 2, "\(gets)")
        #expect(gets.first?.range == "bytes=0-" && gets.first?.ifRange == nil)
        #expect(gets.last?.range == "bytes=\(size / 3)-" && gets.last?.ifRange?.hasPrefix("\"") == true, "\(gets)")
        let (played, media) = try viewer.play("resumed")
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try SourceMatch.check(try #require(media), against: base.clip).isEmpty)
    }

    @Test func flippedByteInTheStoredPackageIsRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        let path = viewer.library + "/titles/talk/package.tdf"
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let (result, media) = try viewer.play("talk")
        #expect(result.status == 1)
        #expect(result.stderr.contains("packageChanged"), "\(result.stderr)")
        #expect(media == nil)
    }

    /// Each refusal: exit 1, its reason by code, no output file.
    static func expectRefused(_ outcome: (result: ProcessResult, media: Data?), _ code: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.result.status == 1, sourceLocation: sourceLocation)
        #expect(outcome.result.stderr.contains(code), "\(outcome.result.stderr)", sourceLocation: sourceLocation)
        #expect(outcome.media == nil, sourceLocation: sourceLocation)
    }

    @Test func expiredLicenceIsRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        Self.expectRefused(try viewer.play("talk", now: Self.now + Self.licenseSeconds + 60), "licenseExpired")
    }

    @Test func playbackWindowOverIsRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        let first = Self.now + 60
        let played = try viewer.play("talk", now: first)
        #expect(played.result.status == 0, "\(played.result.stderr)")
        #expect(try viewer.listed("talk")["firstPlayedAt"] as? String == Self.date(first))
        Self.expectRefused(try viewer.play("talk", now: first + Self.windowSeconds + 60), "playbackWindowOver")
    }

    @Test func clockSetBackAfterAPlayIsRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        let later = Self.now + 3_600
        let played = try viewer.play("talk", now: later)
        #expect(played.result.status == 0, "\(played.result.stderr)")
        Self.expectRefused(try viewer.play("talk", now: later - 3_600), "clockSetBack")
    }

    @Test func titleMovedIntoAnotherLibraryIsRefused() throws {
        let viewer = try Self.base.get().viewer
        let other = Scratch.directory("other-library") + "/mediadrm"
        // Another library (its own device key, made on first use), then the title moved into it.
        let empty = try run(try Tools.player, ["library", "--library", other])
        #expect(empty.status == 0, "\(empty.stderr)")
        try OfflineViewer.copyPrivately(viewer.library + "/titles/talk", to: other + "/titles/talk")
        Self.expectRefused(try viewer.play("talk", library: other), "licenseDevice")
    }

    @Test func changedPayloadIsRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        var record = try viewer.record("talk")
        let parts = try #require(record["license"] as? String).split(separator: ".").map(String.init)
        var payload = try #require(try JSONSerialization.jsonObject(with: try Base64URL.decode(parts[1])) as? [String: Any])
        payload["exp"] = (payload["exp"] as? Int ?? 0) + 30 * 86_400
        let changed = Base64URL.encode(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        record["license"] = [parts[0], changed, parts[2]].joined(separator: ".")
        try viewer.writeRecord(record, "talk")
        Self.expectRefused(try viewer.play("talk"), "licenseSignature")
    }

    @Test func licenceSignedByAnotherKeyIsRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        var record = try viewer.record("talk")
        let parts = try #require(record["license"] as? String).split(separator: ".").map(String.init)
        let header = try #require(try JSONSerialization.jsonObject(with: try Base64URL.decode(parts[0])) as? [String: Any])
        // The same payload and kid, signed by a key the KAS never published.
        let forged = try JWS.sign(payload: try Base64URL.decode(parts[1]),
                                  header: try JSONParserBridge.object(["typ": header["typ"] ?? ""]),
                                  key: JWSSigningKey(p256: try ECP256.Signing.PrivateKey(), keyID: header["kid"] as? String))
        record["license"] = forged
        try viewer.writeRecord(record, "talk")
        Self.expectRefused(try viewer.play("talk"), "licenseSignature")
    }

    // The library's records against a person editing them (docs/offline.md, threat model):
    // each edit is refused with its code until an online renewal.

    /// The issue #28 attack: the viewer's own key in place of the key service's in the title
    /// record, and the licence re-signed with it for ten years without a playback window. The
    /// player verifies with the keys pinned for the key service at download, never the record's.
    @Test func ownSigningKeyAndATenYearLicenceAreRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        var record = try viewer.record("talk")
        let parts = try #require(record["license"] as? String).split(separator: ".").map(String.init)
        let header = try #require(try JSONSerialization.jsonObject(with: try Base64URL.decode(parts[0])) as? [String: Any])
        var payload = try #require(try JSONSerialization.jsonObject(with: try Base64URL.decode(parts[1])) as? [String: Any])
        let decade = Self.now + 10 * 365 * 86_400
        payload["exp"] = decade
        payload["playbackWindow"] = nil
        let own = try ECP256.Signing.PrivateKey()
        let kid = header["kid"] as? String
        record["license"] = try JWS.sign(payload: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]),
                                         header: try JSONParserBridge.object(["typ": header["typ"] ?? ""]),
                                         key: JWSSigningKey(p256: own, keyID: kid))
        record["signingKeys"] = try JSONSerialization.jsonObject(
            with: JSONWriter.write(.object(JWKSet(keys: [JWK(publicKey: own.publicKey, keyID: kid)]).jsonObject)))
        record["expiresAt"] = decade
        try viewer.writeRecord(record, "talk")
        let refused = try viewer.play("talk", now: Self.now + Self.licenseSeconds + 60)
        Self.expectRefused(refused, "licenseSignature")
        #expect(refused.result.stderr.contains("pinned"), "\(refused.result.stderr)")
    }

    /// The clock record deleted to forget a time the library saw, then the clock set back:
    /// refused until an online renewal re-creates the record from the key service's time.
    @Test func deletedClockRecordIsRefusedUntilARenewal() throws {
        let viewer = try Self.base.get().viewer.copy()
        let later = Self.now + 3_600
        let played = try viewer.play("talk", now: later)
        #expect(played.result.status == 0, "\(played.result.stderr)")
        for file in ["clock.sealed", "clock.json"] { try? FileManager.default.removeItem(atPath: viewer.library + "/" + file) }
        Self.expectRefused(try viewer.play("talk", now: later - 3_600), "sealedRecord")
        let renewed = try viewer.license("renew", "talk")
        #expect(renewed.status == 0, "\(renewed.stderr)")
        Self.expectRefused(try viewer.play("talk", now: Self.now - 3_600), "clockSetBack")
        let again = try viewer.play("talk")
        #expect(again.result.status == 0, "\(again.result.stderr)")
    }

    /// The first play edited out of the record (and its sealed record deleted) to restart the
    /// playback window: refused, not a fresh window.
    @Test func deletedFirstPlayIsRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        let first = Self.now + 60
        let played = try viewer.play("talk", now: first)
        #expect(played.result.status == 0, "\(played.result.stderr)")
        var record = try viewer.record("talk")
        record["firstPlayedAt"] = nil
        try viewer.writeRecord(record, "talk")
        try? FileManager.default.removeItem(atPath: viewer.library + "/titles/talk/first-play.sealed")
        Self.expectRefused(try viewer.play("talk", now: first + Self.windowSeconds + 60), "sealedRecord")
    }

    /// A sealed record in another's place (the title directory copied under another name, the
    /// clock record over the pinned keys), and an edited pinned-keys record: each refused.
    @Test func swappedOrEditedSealedRecordsAreRefused() throws {
        let viewer = try Self.base.get().viewer.copy()
        try OfflineViewer.copyPrivately(viewer.library + "/titles/talk", to: viewer.library + "/titles/again")
        var record = try viewer.record("again")
        record["name"] = "again"
        try viewer.writeRecord(record, "again")
        Self.expectRefused(try viewer.play("again"), "sealedRecord")

        let pins = viewer.library + "/signing-keys.sealed"
        let original = try #require(FileManager.default.contents(atPath: pins))
        var edited = original
        edited[edited.count / 2] ^= 0x01
        try edited.write(to: URL(fileURLWithPath: pins))
        Self.expectRefused(try viewer.play("talk"), "sealedRecord")
        try FileManager.default.contents(atPath: viewer.library + "/clock.sealed")?.write(to: URL(fileURLWithPath: pins))
        Self.expectRefused(try viewer.play("talk"), "sealedRecord")
        try original.write(to: URL(fileURLWithPath: pins))
        let restored = try viewer.play("talk")
        #expect(restored.result.status == 0, "\(restored.result.stderr)")
    }

    @Test func renewExtendsAndReleaseGivesBackThenDeleteRemoves() throws {
        let base = try Self.base.get()
        let viewer = try OfflineViewer(kas: base.viewer.kas, subject: "offline-renew")
        let downloaded = try viewer.download(base.url, name: "renewed")
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let before = try #require(try viewer.record("renewed")["expiresAt"] as? Int)
        // Renewed later: a later exp (the KAS counts the duration from the renewal).
        let renewed = try viewer.license("renew", "renewed")
        #expect(renewed.status == 0, "\(renewed.stderr)")
        #expect(try #require(try viewer.record("renewed")["expiresAt"] as? Int) >= before)
        let played = try viewer.play("renewed")
        #expect(played.result.status == 0, "\(played.result.stderr)")
        let released = try viewer.license("release", "renewed")
        #expect(released.status == 0, "\(released.stderr)")
        #expect(try viewer.record("renewed")["state"] as? String == "released")
        #expect(try viewer.record("renewed")["license"] as? String == "")
        Self.expectRefused(try viewer.play("renewed"), "licenseReleased")
        let deleted = try viewer.delete("renewed")
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: viewer.library + "/titles/renewed"))
    }

    /// `--max-offline-devices 2`: a third library (another device key) is refused with the
    /// device-limit code, keeping its complete download; once one of the two releases, the
    /// third gets its licence without downloading again.
    @Test func thirdDeviceIsRefusedUntilOneReleases() throws {
        let clip = try Clips.silent()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2, mediaFlags: Stage.everydayRules + ["--offline", "--max-offline-devices", "2"])
        let first = try OfflineViewer(kas: kas, subject: "offline-devices")
        let second = try OfflineViewer(kas: kas, subject: "offline-devices")
        let third = try OfflineViewer(kas: kas, subject: "offline-devices")
        #expect(try first.download(url, name: "film").status == 0)
        #expect(try second.download(url, name: "film").status == 0)
        let refused = try third.download(url, name: "film")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("[refusal offline_device_limit]"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: third.library + "/titles/film/title.json"))
        let released = try first.license("release", "film")
        #expect(released.status == 0, "\(released.stderr)")
        let retried = try third.download(url, name: "film")
        #expect(retried.status == 0, "\(retried.stderr)")
        // The kept package was complete: the retry made no download request, only the licence.
        let events = OfflineViewer.events(retried.stderr)
        #expect(!events.contains("request") && events.contains("verified") && events.contains("licensed"), "\(events)")
        let played = try third.play("film")
        #expect(played.result.status == 0, "\(played.result.stderr)")
        #expect(try SourceMatch.check(try #require(played.media), against: clip).isEmpty)
    }

    @Test func tdfHLSIsRefusedWithAClearMessage() throws {
        let (kas, _) = try Stage.start()
        let viewer = try OfflineViewer(kas: kas, subject: "offline-hls")
        let result = try viewer.download("https://127.0.0.1:9/stream/master.m3u8")
        #expect(result.status == 1)
        #expect(result.stderr.contains("tdf-hls"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: viewer.library + "/titles/master"))
    }
}

/// JSON for MediaDRMJOSE from a test dictionary.
enum JSONParserBridge {
    static func object(_ dictionary: [String: Any]) throws -> MediaDRMJSON.JSONObject {
        let data = try JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys])
        guard case .object(let object) = try MediaDRMJSON.JSONParser.parse(data) else { throw TestFailure("not an object") }
        return object
    }
}
