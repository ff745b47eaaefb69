// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import Testing
@testable import Client

/// End to end against a BUILT `kas` serving HTTPS under a private CA: `player play --ca --pin`
/// plays bit-exactly, a wrong pin fails before any media byte, a key route answering 302 is
/// refused with the token never re-sent, and the KAS's refusals (expired rental, concurrency
/// limit, swapped keyAccess) each map to their status with no media byte.
@Suite(.serialized) struct SecureKASPlaybackTests {
    private func play(_ file: URL, token: String, _ fixture: SecureKASFixture) async throws -> (MemoryOutput, PlaybackError?) {
        let output = MemoryOutput()
        let session = PlaybackSession(source: .packageFile(file.path), configuration: try fixture.configuration(token: token))
        do throws(PlaybackError) {
            try await session.play(to: output)
            return (output, nil)
        } catch {
            return (output, error)
        }
    }

    @Test func playerPlaysOverTLSWithThePrivateCAAndTheRightPin() throws {
        let fixture = try SecureKASFixture.get()
        for (name, pin) in [("ca-only.mp4", nil), ("pinned.mp4", fixture.serverPin)] as [(String, String?)] {
            let output = fixture.directory.appendingPathComponent(name)
            let played = try run(try Tools.player, ["play", fixture.packageFile.path, "--kas", fixture.kasURL,
                                                         "--token", fixture.token, "--ca", fixture.caFile.path,
                                                         "-o", output.path] + (pin.map { ["--pin", $0] } ?? []))
            #expect(played.status == 0, "\(played.stderr)")
            let hashes = try FFmpeg.streamHashes(output.path)
            #expect(hashes["v"] != nil)
            #expect(hashes["v"] == fixture.base.sourceStreamHashes["v"])
            #expect(hashes["a"] == fixture.base.sourceStreamHashes["a"])
            #expect(!played.stderr.contains(fixture.token))
        }
        #expect(fixture.settledLiveSessionCount() == 0)
    }

    @Test func aWrongPinFailsWithThePinErrorAndNoMediaByte() throws {
        let fixture = try SecureKASFixture.get()
        let output = fixture.directory.appendingPathComponent("wrong-pin.mp4")
        let played = try run(try Tools.player, ["play", fixture.packageFile.path, "--kas", fixture.kasURL,
                                                     "--token", fixture.token, "--ca", fixture.caFile.path,
                                                     "--pin", fixture.otherPin, "-o", output.path])
        #expect(played.status == 1)
        #expect(played.stderr.contains("pin"), "\(played.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        // Without the CA the system store does not know the private CA either.
        let untrusted = try run(try Tools.player, ["play", fixture.packageFile.path, "--kas", fixture.kasURL,
                                                           "--token", fixture.token, "-o", output.path])
        #expect(untrusted.status == 1)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(fixture.settledLiveSessionCount() == 0)
    }

    @Test func aKeyRouteAnswering302IsRefusedAndTheTokenIsNeverResent() throws {
        let fixture = try SecureKASFixture.get()
        let root = fixture.directory.appendingPathComponent("fake-kas")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("media/v1"), withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 1234).write(to: root.appendingPathComponent("media/v1/certificate"))
        let fake = try RangeOrigin(root: root.path, arguments: ["--redirect", "/media/v1/session/start=/captured@302"])
        defer { fake.stop() }
        let package = try fixture.package(named: "redirected.tdf", kasURL: fake.url(""))
        let output = fixture.directory.appendingPathComponent("redirected.mp4")
        let played = try run(try Tools.player, ["play", package.path, "--kas", fake.url(""), "--token", fixture.token,
                                                     "--fairplay", "-o", output.path])
        #expect(played.status == 1)
        #expect(played.stderr.contains("redirect"), "\(played.stderr)")
        #expect(played.stderr.contains("certificate: 1234 bytes"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let hits = try fake.hits()
        #expect(hits.counts["/captured"] == nil)
        #expect((hits.counts["/media/v1/session/start"] ?? 0) >= 1)
        // Every request that carried the token went to the route that answered 302, none after it elsewhere.
        let firstRedirect = try #require(hits.log.firstIndex { $0.path == "/media/v1/session/start" })
        for entry in hits.log[firstRedirect...] where entry.path != "/media/v1/session/start" {
            #expect(!entry.authorization, "\(entry.method) \(entry.path) carried the token")
        }
        // The certificate was fetched without the credential, after admission and before the sessions.
        #expect(hits.log.first.map { $0.path == "/media/v1/certificate" && !$0.authorization } == true)
        #expect(hits.log.dropFirst().allSatisfy { $0.path == "/media/v1/session/start" })
    }

    @Test func anExpiredRentalIsDeniedWithNoMediaByte() async throws {
        let fixture = try SecureKASFixture.get()
        let (output, error) = try await play(fixture.rentalPackageFile, token: fixture.expiredRentalToken, fixture)
        #expect(error?.code == .denied)
        #expect(error?.status == 403)
        #expect(output.bytes.isEmpty)
        #expect(fixture.denialReasons().contains("rental_purchase_window_closed"))
        #expect(fixture.settledLiveSessionCount() == 0)
    }

    @Test func aSecondPlaybackOverTheStreamLimitIsRefusedUntilTheFirstStops() async throws {
        let fixture = try SecureKASFixture.get()
        let first = try await HeldPlayback(.packageFile(fixture.singleStreamPackageFile.path),
                                           configuration: try fixture.configuration(token: fixture.token))
        #expect(first.hasStarted)
        let (output, error) = try await play(fixture.singleStreamPackageFile, token: fixture.token, fixture)
        #expect(error?.code == .concurrencyLimit)
        #expect(error?.status == 429)
        #expect(output.bytes.isEmpty)

        #expect(await first.release()?.code == .stopped)
        let (again, againError) = try await play(fixture.singleStreamPackageFile, token: fixture.token, fixture)
        #expect(againError == nil)
        #expect(!again.bytes.isEmpty)
        #expect(fixture.settledLiveSessionCount() == 0)
    }

    @Test func swappedKeyAccessObjectsAreRefusedWithNoMediaByte() async throws {
        let fixture = try SecureKASFixture.get()
        let (output, error) = try await play(fixture.swappedPackageFile, token: fixture.token, fixture)
        let refusal = try #require(error)
        #expect(output.bytes.isEmpty)
        // Admission may catch the swap (naming the check) before the KAS refuses the key (403).
        if refusal.code == .refused {
            #expect(refusal.check?.isEmpty == false)
        } else {
            #expect(refusal.code == .denied)
            #expect(refusal.status == 403)
        }
        #expect(fixture.settledLiveSessionCount() == 0)
    }

    @Test func playerAdmitRunsEveryCheckAndExitsByTheOutcome() throws {
        let fixture = try SecureKASFixture.get()
        let player = try Tools.player
        let admitted = try run(player, ["admit", fixture.packageFile.path, "--kas", fixture.kasURL])
        #expect(admitted.status == 0, "\(admitted.stderr)")
        let text = String(decoding: admitted.stdout, as: UTF8.self)
        #expect(text.contains("[pass] §5.2 keyAccess: url names the accepted key service"))
        #expect(!text.contains("[FAIL]"))
        #expect(text.hasSuffix("admitted (fps-v2)\n"))

        let refused = try run(player, ["admit", fixture.packageFile.path, "--kas", "https://kas.elsewhere.example", "--json"])
        #expect(refused.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: refused.stdout) as? [String: Any])
        #expect(object["admitted"] as? Bool == false)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count > 30)
        let failed = checks.filter { $0["status"] as? String == "fail" }.compactMap { $0["check"] as? String }
        #expect(failed == ["§5.2 keyAccess: url names the accepted key service"])
        #expect(refused.stderr.contains("the package's key service \(fixture.kasURL) differs from --kas https://kas.elsewhere.example"))

        let hls = try run(player, ["admit", fixture.base.tdfHLSDirectory.path, "--json"])
        #expect(hls.status == 0, "\(hls.stderr)")
        let hlsObject = try #require(try JSONSerialization.jsonObject(with: hls.stdout) as? [String: Any])
        #expect(hlsObject["profile"] as? String == "tdf-hls")
        #expect(hlsObject["admitted"] as? Bool == true)

        let truncated = fixture.directory.appendingPathComponent("admit-truncated.tdf")
        try Data(try Data(contentsOf: fixture.packageFile).prefix(3000)).write(to: truncated)
        #expect(try run(player, ["admit", truncated.path, "--kas", fixture.kasURL]).status == 1)
    }

    @Test func playerPlayJSONReportsEachStepAndTheResultOnStderr() throws {
        let fixture = try SecureKASFixture.get()
        let output = fixture.directory.appendingPathComponent("json.mp4")
        let played = try run(try Tools.player, ["play", fixture.packageFile.path, "--kas", fixture.kasURL,
                                                     "--token", fixture.token, "--ca", fixture.caFile.path,
                                                     "--fairplay", "--json", "-o", output.path])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stdout.isEmpty)
        let events = played.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.count == played.stderr.split(separator: "\n").count)   // every line is JSON
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.first == "admitted")
        #expect(names.last == "result")
        #expect(events.last?["ok"] as? Bool == true)
        // The test KAS has no FairPlay certificate configured: reported, not fatal on Linux.
        #expect(events.contains { $0["event"] as? String == "certificate" && $0["configured"] as? Bool == false })
        let keyed = Set(events.filter { $0["event"] as? String == "key-delivered" }.compactMap { $0["component"] as? String })
        #expect(keyed == ["video", "audio"])
        #expect(names.contains("first-clear-byte"))
        #expect(try FFmpeg.streamHashes(output.path)["v"] == fixture.base.sourceStreamHashes["v"])

        let denied = try run(try Tools.player, ["play", fixture.rentalPackageFile.path, "--kas", fixture.kasURL,
                                                        "--token", fixture.expiredRentalToken, "--ca", fixture.caFile.path,
                                                        "--json", "-o", output.path + ".denied"])
        #expect(denied.status == 1)
        let last = denied.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.last
        #expect(last?["ok"] as? Bool == false)
        #expect(last?["code"] as? String == "denied")
        #expect(last?["status"] as? Int == 403)
        #expect(!FileManager.default.fileExists(atPath: output.path + ".denied"))
    }
}
