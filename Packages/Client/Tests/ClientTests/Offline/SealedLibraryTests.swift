import Foundation
import MediaDRMCrypto
import MediaDRMJSON
import Testing
@testable import Client

/// The library's records against a person editing them (docs/offline.md, threat model): each
/// edit the issue #28 attack made, and each way of getting around a sealed record, is refused
/// with its code until an online renewal; real ES256 licences, real seals, a real file system.
/// The end-to-end suite makes the same attacks with the real `player` and `kas` (Tests-E2E
/// OfflineTests).
@Suite struct SealedLibraryTests {
    static let now = LibraryFixture.now
    static let window = LibraryFixture.window

    @Test func aDownloadedTitlePlaysAndItsRecordHoldsNoKeysOrTimes() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        let first = try fixture.play("talk", now: Self.now + 60)
        #expect(first.firstPlayedAt == nil)
        #expect(try fixture.play("talk", now: Self.now + 120).firstPlayedAt == Self.now + 60)
        for file in ["clock.sealed", "signing-keys.sealed", "titles/talk/first-play.sealed"] {
            #expect(FileManager.default.fileExists(atPath: fixture.path(file)), "\(file)")
            #expect(OfflineLibraryTests.mode(fixture.path(file)) == 0o600, "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.path("clock.json")))
        let record = try fixture.titleRecord("talk")
        #expect(record["signingKeys"] == nil && record["firstPlayedAt"] == nil)
        // Sealed means unreadable too: neither the mark nor the pinned key's coordinates in clear.
        let x = try #require(try fixture.jwks.requireArray("keys").first?.object?.requireString("x"))
        let pins = try Data(contentsOf: URL(fileURLWithPath: fixture.path("signing-keys.sealed")))
        #expect(pins.range(of: Data(x.utf8)) == nil)
        let clock = try Data(contentsOf: URL(fileURLWithPath: fixture.path("clock.sealed")))
        #expect(clock.range(of: Data("highWaterMark".utf8)) == nil)
    }

    /// The issue #28 attack: the user's own key put in the title record in place of the key
    /// service's, and the licence re-signed with it, ten years long and without a playback window.
    @Test func ownSigningKeyInTheTitleRecordAndAReSignedLicenceAreRefused() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        let own = try ECP256.Signing.PrivateKey()
        var record = try fixture.titleRecord("talk")
        record["signingKeys"] = .object(LibraryFixture.jwks([own]))
        record["license"] = .string(try fixture.licence(signer: own, expiresAt: Self.now + 10 * 365 * 86_400, window: nil))
        record["expiresAt"] = .number(JSONNumber(Self.now + 10 * 365 * 86_400))
        try fixture.writeTitleRecord(record, "talk")
        let refusal = #expect(throws: OfflineError(.licenseSignature, "")) { try fixture.play("talk", now: Self.now + 60) }
        #expect(refusal?.reason.contains("pinned") == true, "\(refusal?.reason ?? "")")

        // Pointing the title at a key service nothing was pinned for does not help either.
        record["keyService"] = .string("https://own.example")
        try fixture.writeTitleRecord(record, "talk")
        #expect(throws: OfflineError(.licenseSignature, "")) { try fixture.play("talk", now: Self.now + 60) }
    }

    @Test func anEditedOrDeletedClockRecordIsRefusedUntilARenewal() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        try fixture.play("talk", now: Self.now + 3_600)
        // The clock set back an hour: refused, with the mark as it is.
        #expect(throws: OfflineError(.clockSetBack, "")) { try fixture.play("talk", now: Self.now) }

        try fixture.flipByte("clock.sealed")
        #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now + 3_600) }
        try fixture.remove("clock.sealed")
        let refusal = #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now) }
        #expect(refusal?.reason.contains("player license renew talk") == true, "\(refusal?.reason ?? "")")
        // A plain clock in its place (as an earlier player wrote it) is not taken either.
        try Data(#"{"highWaterMark":0}"#.utf8).write(to: URL(fileURLWithPath: fixture.path("clock.json")))
        #expect(throws: OfflineError(.libraryUpgrade, "")) { try fixture.play("talk", now: Self.now) }

        // An online renewal re-creates the mark from the key service's issue time: the clock set
        // back before it is refused again, the right clock plays.
        try fixture.renew("talk", now: Self.now + 3_600)
        #expect(!FileManager.default.fileExists(atPath: fixture.path("clock.json")))
        #expect(throws: OfflineError(.clockSetBack, "")) { try fixture.play("talk", now: Self.now) }
        try fixture.play("talk", now: Self.now + 3_700)
    }

    @Test func anEditedOrDeletedFirstPlayRecordIsRefused() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        try fixture.play("talk", now: Self.now + 60)
        #expect(throws: OfflineError(.playbackWindowOver, "")) { try fixture.play("talk", now: Self.now + Self.window + 120) }

        // The first play removed from the title record (where an earlier player kept it) changes nothing.
        var record = try fixture.titleRecord("talk")
        record["firstPlayedAt"] = nil
        try fixture.writeTitleRecord(record, "talk")
        #expect(throws: OfflineError(.playbackWindowOver, "")) { try fixture.play("talk", now: Self.now + Self.window + 120) }

        try fixture.flipByte("titles/talk/first-play.sealed")
        #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now + Self.window + 120) }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: fixture.path("titles/talk/first-play.sealed")))
        #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now + Self.window + 120) }
        try fixture.remove("titles/talk/first-play.sealed")
        #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now + Self.window + 120) }
        #expect(fixture.library.knownFirstPlay(of: try fixture.library.requireTitle("talk")) == nil)
    }

    @Test func aSealedRecordSwappedForAnotherIsRefused() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        try fixture.download("film")
        try fixture.play("talk", now: Self.now + 60)
        // The never-played title's first-play record put in place of the played one's.
        try fixture.copy("titles/film/first-play.sealed", over: "titles/talk/first-play.sealed")
        #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now + Self.window + 120) }
        // The library-level records in each other's place.
        try fixture.copy("clock.sealed", over: "signing-keys.sealed")
        #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("film", now: Self.now + 60) }

        // Another library's records (another device key), with its own clock and pins.
        let other = try LibraryFixture()
        try other.download("film", now: Self.now - 86_000)
        for file in ["clock.sealed", "signing-keys.sealed", "titles/film/first-play.sealed"] {
            let copy = try LibraryFixture()
            try copy.download("film")
            try FileManager.default.contents(atPath: other.path(file))?.write(to: URL(fileURLWithPath: copy.path(file)))
            #expect(throws: OfflineError(.sealedRecord, ""), "\(file)") { try copy.play("film", now: Self.now + 60) }
        }
    }

    /// Device binding: a title copied into another library (its own device key) is refused as
    /// another device's, with or without the other library's sealed records beside it.
    @Test func aTitleCopiedIntoAnotherLibraryIsRefusedAsAnotherDevices() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        let other = try LibraryFixture()
        try other.download("film")
        try FileManager.default.copyItem(atPath: fixture.path("titles/talk"), toPath: other.path("titles/talk"))
        #expect(throws: OfflineError(.licenseDevice, "")) { try other.play("talk", now: Self.now + 60) }
        for file in ["clock.sealed", "signing-keys.sealed"] {
            try FileManager.default.contents(atPath: fixture.path(file))?.write(to: URL(fileURLWithPath: other.path(file)))
        }
        #expect(throws: OfflineError(.licenseDevice, "")) { try other.play("talk", now: Self.now + 60) }
    }

    @Test func anEditedPinnedKeysRecordIsRefused() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        try fixture.flipByte("signing-keys.sealed")
        let refusal = #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now + 60) }
        #expect(refusal?.reason.contains("licence-signing keys") == true, "\(refusal?.reason ?? "")")
        try fixture.remove("signing-keys.sealed")
        #expect(throws: OfflineError(.sealedRecord, "")) { try fixture.play("talk", now: Self.now + 60) }
        // A renewal pins the key service's keys again.
        try fixture.renew("talk", now: Self.now + 60)
        try fixture.play("talk", now: Self.now + 120)
    }

    /// A changed key set moves the pin only when it came over an authenticated channel (https);
    /// over plain http (loopback only) the pinned keys stay, and a licence must verify with them.
    @Test func thePinMovesOnlyOverAnAuthenticatedChannel() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        let next = try ECP256.Signing.PrivateKey()
        let rotated = LibraryFixture.jwks([fixture.signer, next])
        let signedByNext = try fixture.licence(signer: next, keyID: "l2")
        #expect(try fixture.library.pin(fixture.fetched(rotated, authenticated: false)) == fixture.jwks)
        #expect(throws: OfflineError(.licenseSignature, "")) {
            try fixture.library.verifyIssued(signedByNext, fetched: fixture.fetched(rotated, authenticated: false),
                                             assetID: LibraryFixture.asset)
        }
        let check = try fixture.library.verifyIssued(signedByNext, fetched: fixture.fetched(rotated), assetID: LibraryFixture.asset)
        #expect(check.license.expiresAt == Self.now + LibraryFixture.duration)
        #expect(try fixture.library.pin(fixture.fetched(LibraryFixture.jwks([fixture.signer]), authenticated: false)) == rotated)
        // The title licensed by the first key still plays: the rotated set holds it.
        try fixture.play("talk", now: Self.now + 60)
    }

    /// A library as the player before sealed records wrote it: plain clock, signing keys and
    /// first play in the title record. Refused with a message asking for one renewal, which
    /// keeps what it knew (the first play, the mark) and seals it.
    @Test func aTitleAnEarlierPlayerStoredAsksForOneRenewal() throws {
        let fixture = try LibraryFixture()
        try fixture.download("talk")
        for file in ["clock.sealed", "signing-keys.sealed", "titles/talk/first-play.sealed"] { try fixture.remove(file) }
        try Data(#"{"highWaterMark":\#(Self.now + 600)}"#.utf8).write(to: URL(fileURLWithPath: fixture.path("clock.json")))
        var record = try fixture.titleRecord("talk")
        record["signingKeys"] = .object(fixture.jwks)
        record["firstPlayedAt"] = .number(JSONNumber(Self.now + 60))
        try fixture.writeTitleRecord(record, "talk")

        let refusal = #expect(throws: OfflineError(.libraryUpgrade, "")) { try fixture.play("talk", now: Self.now + 700) }
        #expect(refusal?.reason.contains("player license renew talk") == true, "\(refusal?.reason ?? "")")
        #expect(try fixture.library.titles().map(\.name) == ["talk"])

        try fixture.renew("talk", now: Self.now + 300)
        #expect(try fixture.titleRecord("talk")["signingKeys"] == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.path("clock.json")))
        // The plain mark was kept (never lowered) and the plain first play sealed.
        #expect(throws: OfflineError(.clockSetBack, "")) { try fixture.play("talk", now: Self.now) }
        #expect(try fixture.play("talk", now: Self.now + 700).firstPlayedAt == Self.now + 60)

        // A plain first play set in the future to hold the window open is taken as the renewal's time.
        try fixture.remove("titles/talk/first-play.sealed")
        record["firstPlayedAt"] = .number(JSONNumber(Self.now + 10 * 365 * 86_400))
        try fixture.writeTitleRecord(record, "talk")
        try fixture.renew("talk", now: Self.now + 800)
        #expect(try fixture.play("talk", now: Self.now + 900).firstPlayedAt == Self.now + 800)
        #expect(throws: OfflineError(.playbackWindowOver, "")) { try fixture.play("talk", now: Self.now + 800 + Self.window) }
    }

    @Test func aSealOpensOnlyUnderItsNameWithItsDeviceKey() throws {
        let device = try ECP256.KeyAgreement.PrivateKey()
        let seal = try LibrarySeal(deviceKey: device)
        let record = JSONObject([("highWaterMark", .number(JSONNumber(Self.now)))])
        let sealed = try seal.seal(record, name: "clock")
        #expect(seal.open(sealed, name: "clock") == record)
        #expect(try LibrarySeal(deviceKey: ECP256.KeyAgreement.PrivateKey(pemRepresentation: device.pemRepresentation))
            .open(sealed, name: "clock") == record)
        #expect(seal.open(sealed, name: "signing-keys") == nil)
        #expect(try LibrarySeal(deviceKey: ECP256.KeyAgreement.PrivateKey()).open(sealed, name: "clock") == nil)
        #expect(seal.open(sealed.dropLast(), name: "clock") == nil)
        var version = sealed
        version[0] = 2
        #expect(seal.open(version, name: "clock") == nil)
        #expect(seal.open(Data(), name: "clock") == nil)
    }
}
