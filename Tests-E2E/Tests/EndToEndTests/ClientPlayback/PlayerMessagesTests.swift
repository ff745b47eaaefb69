// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Dispatch
import Foundation
import MediaDRMZIP
import Testing
@testable import Client

extension PlaybackSessionTests {
    /// Against the main fixture's `kas serve`: a viewer without the entitlement told so in words
    /// and as `refusal` in the `--json` result line; admission messages that name both key
    /// service URLs and the flag; a local tdf-hls master played from its directory; a corrupted
    /// segment, a failing presenter and a missing origin file, each with its cause. No token,
    /// session id or signed query appears.
    @Suite struct PlayerMessagesTests {
        @Test func aViewerWithoutTheEntitlementIsToldSo() async throws {
            let fixture = try PlaybackFixture.get()
            let token = fixture.unentitledToken
            let text = try await PlayerRun.play(fixture.packageFile.path, kas: fixture.kasURL, token: token)
            let json = try await PlayerRun.play(fixture.packageFile.path, kas: fixture.kasURL, token: token, json: true)
            PlayerRun.expectRefused(text, json, .denied(.notEntitled), status: 403, token: token)
            #expect(json.result?["code"] as? String == "denied")
        }

        @Test func aPackageOfAnotherKeyServiceNamesBothURLsAndTheFlag() async throws {
            let fixture = try PlaybackFixture.get()
            let other = "http://127.0.0.1:9"
            let played = try await PlayerRun.play(fixture.packageFile.path, kas: other, token: fixture.entitledToken)
            #expect(played.output.status == 1)
            #expect(played.stderr.contains("the package's key service and --kas differ"), "\(played.stderr)")
            #expect(played.stderr.contains(fixture.kasURL) && played.stderr.contains(other), "\(played.stderr)")
            #expect(!played.stderr.contains("not a playable"))

            let unnamed = try await PlayerRun.player(["admit", fixture.packageFile.path])
            #expect(unnamed.status == 1)
            #expect(unnamed.stderr.contains(
                "the package's key service \(fixture.kasURL) is not accepted; give --kas \(fixture.kasURL)"),
                    "\(unnamed.stderr)")
            let stdout = String(decoding: unnamed.stdout, as: UTF8.self)
            #expect(stdout.contains("[FAIL] §5.2"), "\(stdout)")
            #expect(stdout.contains("the accepted one is https://platform.arkavo.net"), "\(stdout)")
            let differing = try await PlayerRun.player(["admit", fixture.packageFile.path, "--kas", other])
            #expect(differing.status == 1)
            #expect(differing.stderr.contains("the package's key service \(fixture.kasURL) differs from --kas \(other)"),
                    "\(differing.stderr)")
        }

        /// `player admit` speaks `packager inspect`'s words: pass, FAIL, n/a, not run.
        @Test func admitUsesTheInspectVocabulary() async throws {
            let fixture = try PlaybackFixture.get()
            let admitted = try await PlayerRun.player(["admit", fixture.packageFile.path, "--kas", fixture.kasURL])
            #expect(admitted.status == 0)
            let text = String(decoding: admitted.stdout, as: UTF8.self)
            #expect(text.contains("[pass] "))
            #expect(!text.contains("[passed]") && !text.contains("[failed]") && !text.contains("notApplicable"))
            let json = try await PlayerRun.player(["admit", fixture.packageFile.path, "--kas", fixture.kasURL, "--json"])
            let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
            let statuses = Set(((object?["checks"] as? [[String: Any]]) ?? []).compactMap { $0["status"] as? String })
            #expect(!statuses.isEmpty && statuses.isSubset(of: ["pass", "n/a"]), "\(statuses)")
        }

        @Test func aLocalTDFHLSMasterPlaysFromItsDirectory() async throws {
            let fixture = try PlaybackFixture.get()
            let master = fixture.tdfHLSDirectory.appendingPathComponent("master.m3u8").path
            #expect(try PlaybackSource(argument: master) == .tdfHLSMasterFile(master))
            let admitted = try await PlayerRun.player(["admit", master])
            #expect(admitted.status == 0, "\(admitted.stderr)")
            #expect(String(decoding: admitted.stdout, as: UTF8.self).contains("admitted (tdf-hls)"))
            let run = try await PlayerRun.play(master, kas: fixture.kasURL, token: fixture.entitledToken)
            defer { try? FileManager.default.removeItem(at: run.outputFile) }
            #expect(run.output.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("tdf-hls stream"))
            let hashes = try FFmpeg.streamHashes(run.outputFile.path)
            #expect(hashes["v"] == fixture.sourceStreamHashes["v"] && hashes["a"] == fixture.sourceStreamHashes["a"])
        }

        /// `--from-start` and `--duration` follow a live stream: a finished tdf-hls stream and an
        /// fps-v2 package refuse them in words, with no output.
        @Test func liveFlagsOnAFinishedStreamOrAPackageAreRefused() async throws {
            let fixture = try PlaybackFixture.get()
            let master = fixture.tdfHLSDirectory.appendingPathComponent("master.m3u8").path
            let finished = try await PlayerRun.play(master, kas: fixture.kasURL, token: fixture.entitledToken, ["--duration", "4"])
            #expect(finished.output.status == 1)
            #expect(finished.stderr.contains("this one is finished (its playlists end with EXT-X-ENDLIST)"), "\(finished.stderr)")
            #expect(!FileManager.default.fileExists(atPath: finished.outputFile.path))
            let package = try await PlayerRun.play(fixture.packageFile.path, kas: fixture.kasURL, token: fixture.entitledToken,
                                                   ["--from-start"])
            #expect(package.output.status != 0)
            #expect(package.stderr.contains("an fps-v2 package is not live"), "\(package.stderr)")
        }

        @Test func aFlippedByteInAStoredSegmentIsACRCFailure() async throws {
            let fixture = try PlaybackFixture.get()
            let corrupted = fixture.www.appendingPathComponent("corrupted-\(UUID().uuidString.prefix(8)).tdf")
            var bytes = try Data(contentsOf: fixture.packageFile)
            let reader = try ZIPReader(path: fixture.packageFile.path)
            let entry = try #require(reader.entries.first { $0.name.hasPrefix("video-segment") })
            // The exact fps-v2 layout: a 30-byte local header, the name, then the stored data.
            let offset = Int(entry.localHeaderOffset) + 30 + entry.name.utf8.count + Int(entry.compressedSize) / 2
            bytes[offset] ^= 0x01
            try bytes.write(to: corrupted)
            defer { try? FileManager.default.removeItem(at: corrupted) }
            let run = try await PlayerRun.play(corrupted.path, kas: fixture.kasURL, token: fixture.entitledToken, json: true)
            #expect(run.output.status == 1)
            #expect(run.stderr.contains("video segment 0: \(entry.name) failed its CRC-32 check: the package is corrupted"),
                    "\(run.stderr)")
            #expect(run.result?["code"] as? String == "integrity")
            #expect(!FileManager.default.fileExists(atPath: run.outputFile.path))
        }

        /// A stand-in `ffplay` first on PATH that fails the way a real one without a display does:
        /// after reading everything, or at once (the playback then writes into a closed pipe).
        @Test(arguments: ["cat > /dev/null", "exec 0<&-"])
        func aFailingPresenterFailsTheCommandWithItsMessage(_ reading: String) async throws {
            let fixture = try PlaybackFixture.get()
            let bin = FileManager.default.temporaryDirectory.appendingPathComponent("fake-ffplay-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: bin) }
            let script = bin.appendingPathComponent("ffplay")
            let message = "ffplay: could not initialize SDL - No available video device"
            try Data("#!/bin/sh\n\(reading)\necho '\(message)' >&2\nexit 1\n".utf8).write(to: script)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
            let environment = ["PATH": bin.path + ":/usr/bin:/bin"]
            let text = try await PlayerRun.play(fixture.packageFile.path, kas: fixture.kasURL, token: fixture.entitledToken,
                                                ["--play"], environment: environment)
            #expect(text.output.status == 1)
            #expect(text.stderr.contains("ffplay exited with status 1: \(message)"), "\(text.stderr)")
            // The failure is the command's last word, whatever progress came before it.
            #expect(text.stderr.split(separator: "\n").last?.contains("ffplay exited with status 1") == true, "\(text.stderr)")
            let json = try await PlayerRun.play(fixture.packageFile.path, kas: fixture.kasURL, token: fixture.entitledToken,
                                                ["--play"], json: true, environment: environment)
            #expect(json.output.status == 1)
            #expect(json.result?["code"] as? String == "presentation", "\(json.stderr)")
        }

        @Test func aMissingFileOnTheOriginGivesStatusAndPathButNoQuery() async throws {
            let fixture = try PlaybackFixture.get()
            let signature = "sig-\(UUID().uuidString)"
            let run = try await PlayerRun.play(fixture.originURL + "/gone/missing.tdf?X-Signature=\(signature)",
                                               kas: fixture.kasURL, token: fixture.entitledToken, json: true)
            #expect(run.output.status == 1)
            #expect(run.stderr.contains("HTTP 404 for /gone/missing.tdf"), "\(run.stderr)")
            #expect(!run.stderr.contains(signature) && !run.stderr.contains("X-Signature"))
        }
    }
}

extension SecureKASPlaybackTests {
    /// Against the TLS `kas serve`: a lapsed rental and a playback over the stream limit, each
    /// told so in words and as `refusal` in the `--json` result line.
    @Suite struct PlayerRefusalMessagesTests {
        @Test func aLapsedRentalIsToldSo() async throws {
            let fixture = try SecureKASFixture.get()
            let token = fixture.expiredRentalToken
            let ca = ["--ca", fixture.caFile.path]
            let text = try await PlayerRun.play(fixture.rentalPackageFile.path, kas: fixture.kasURL, token: token, ca)
            let json = try await PlayerRun.play(fixture.rentalPackageFile.path, kas: fixture.kasURL, token: token, ca, json: true)
            PlayerRun.expectRefused(text, json, .denied(.rentalPurchaseWindowClosed), status: 403, token: token)
            #expect(fixture.settledLiveSessionCount() == 0)
        }

        @Test func aPlaybackOverTheStreamLimitIsToldSo() async throws {
            let fixture = try SecureKASFixture.get()
            let first = try await HeldPlayback(.packageFile(fixture.singleStreamPackageFile.path),
                                               configuration: try fixture.configuration(token: fixture.token))
            #expect(first.hasStarted)
            let ca = ["--ca", fixture.caFile.path], package = fixture.singleStreamPackageFile.path
            let text = try await PlayerRun.play(package, kas: fixture.kasURL, token: fixture.token, ca)
            let json = try await PlayerRun.play(package, kas: fixture.kasURL, token: fixture.token, ca, json: true)
            #expect(await first.release()?.code == .stopped)
            PlayerRun.expectRefused(text, json, .denied(.concurrentStreams), status: 429, token: fixture.token)
            #expect(json.result?["code"] as? String == "concurrencyLimit")
            #expect(fixture.settledLiveSessionCount() == 0)
        }
    }
}
