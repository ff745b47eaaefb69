import Foundation
import MediaDRMCrypto
import MediaDRMJSON
import Testing
@testable import Client

/// The offline library on a real file system: owner-only permissions, one device key per
/// library whoever asks first, the clock's high-water mark, records replaced atomically.
@Suite struct OfflineLibraryTests {
    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int ?? -1) & 0o777
    }

    @Test func createdPrivateWithOneDeviceKey() throws {
        let parent = try makeTemporaryDirectory()
        let path = parent.appendingPathComponent("nested/mediadrm").path
        let library = try OfflineLibrary(path: path)
        #expect(Self.mode(path) == 0o700)
        #expect(Self.mode(path + "/titles") == 0o700)
        let key = try library.deviceKey()
        #expect(Self.mode(path + "/device-key.pem") == 0o600)
        // The same key from this and from another opening of the library.
        #expect(try library.deviceKey().publicKey == key.publicKey)
        #expect(try OfflineLibrary(path: path).deviceKey().publicKey == key.publicKey)
        // Only the key file and the titles directory: no temporary file left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == ["device-key.pem", "titles"])
    }

    @Test func libraryOthersCanReadIsRefused() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("shared").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        #expect(throws: OfflineError(.library, "")) { try OfflineLibrary(path: path) }
    }

    @Test func clockSetBackBeyondTheToleranceIsRefused() throws {
        let library = try OfflineLibrary(path: try makeTemporaryDirectory().appendingPathComponent("lib").path)
        // A new library has no clock record: an offline play refuses, an online action goes on.
        #expect(throws: OfflineError(.sealedRecord, "")) { try library.observeClock(now: 1_800_000_000, playing: "talk") }
        #expect(try library.observeClockOnline(now: 1_800_000_000) == 1_800_000_000)
        try library.raiseClock(to: 1_800_000_000)
        #expect(try library.observeClock(now: 1_800_000_000, playing: "talk") == 1_800_000_000)
        // Within the tolerance (NTP corrections): judged at the mark, not refused.
        #expect(try library.observeClock(now: 1_800_000_000 - OfflineLibrary.clockTolerance, playing: "talk") == 1_800_000_000)
        #expect(throws: OfflineError(.clockSetBack, "")) { try library.observeClock(now: 1_800_000_000 - 3600, playing: "talk") }
        #expect(throws: OfflineError(.clockSetBack, "")) { try library.observeClockOnline(now: 1_800_000_000 - 3600) }
        // Forward moves the mark.
        #expect(try library.observeClock(now: 1_800_003_600, playing: "talk") == 1_800_003_600)
        #expect(throws: OfflineError(.clockSetBack, "")) { try library.observeClock(now: 1_800_000_000, playing: "talk") }
        // Raising never lowers it.
        try library.raiseClock(to: 1_800_000_000)
        #expect(throws: OfflineError(.clockSetBack, "")) { try library.observeClock(now: 1_800_000_000, playing: "talk") }
    }

    @Test func titleRecordsRoundTripPrivately() throws {
        let library = try OfflineLibrary(path: try makeTemporaryDirectory().appendingPathComponent("lib").path)
        let title = OfflineTitle(name: "talk", source: "https://cdn.example/talk.tdf", keyService: "https://kas.example",
                                 assetID: "0f8fad5b-d9cb-469f-a165-70867728950e", viewer: "alice", packageBytes: 1234,
                                 packageSHA256: String(repeating: "ab", count: 32), state: .licensed, license: "a.b.c",
                                 licenseID: "lid", expiresAt: 1_900_000_000)
        try library.save(title)
        #expect(try library.title(named: "talk") == title)
        #expect(Self.mode(library.titleDirectory("talk") + "/title.json") == 0o600)
        #expect(try library.titles().map(\.name) == ["talk"])
        #expect(throws: OfflineError(.library, "")) { try library.title(named: "../talk") }
        #expect(throws: OfflineError(.library, "")) { try library.title(named: ".hidden") }
        try library.remove("talk")
        #expect(try library.title(named: "talk") == nil)
        #expect(throws: OfflineError(.unknownTitle, "")) { try library.requireTitle("talk") }
    }
}
