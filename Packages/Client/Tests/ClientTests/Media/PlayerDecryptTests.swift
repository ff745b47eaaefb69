import MediaDRMEncoding
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The built `player decrypt` against Shaka Packager's cbcs output.
extension MediaTests {
    @Suite struct PlayerDecryptTests {
        @Test func usageErrorsExit64() throws {
            let player = try Tools.player()
            #expect(try Tools.run(player, []).status == 64)
            #expect(try Tools.run(player, ["decrypt"]).status == 64)
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaAudio
            // No segment, no key, malformed keys.
            #expect(try Tools.run(player, ["decrypt", track.initSegment.path, "--key", track.keyHex]).status == 64)
            #expect(try Tools.run(player, ["decrypt", track.initSegment.path, track.segments[0].path]).status == 64)
            for bad in ["00", Hex.encode(track.keyID), Hex.encode(track.keyID) + ":" + Hex.encode(track.key) + "00",
                        String(repeating: "g", count: 32) + ":" + Hex.encode(track.key)] {
                let result = try Tools.run(player, ["decrypt", track.initSegment.path, track.segments[0].path, "--key", bad])
                #expect(result.status == 64)
                #expect(!result.stderrText.contains(Hex.encode(track.key)), "a key must never be echoed")
            }
            // The same KID twice.
            let twice = try Tools.run(player, ["decrypt", track.initSegment.path, track.segments[0].path,
                                               "--key", track.keyHex, "--key", track.keyHex])
            #expect(twice.status == 64)
        }

        @Test func helpExits0() throws {
            let player = try Tools.player()
            let top = try Tools.run(player, ["--help"])
            #expect(top.status == 0)
            #expect(String(decoding: top.stdout, as: UTF8.self).contains("decrypt"))
            let verb = try Tools.run(player, ["decrypt", "--help"])
            #expect(verb.status == 0)
            #expect(String(decoding: verb.stdout, as: UTF8.self).contains("--key"))
        }

        @Test(arguments: ["v", "a"])
        func decryptsToAFileBitExactly(_ kind: String) throws {
            let player = try Tools.player()
            let fixtures = try MediaFixtures.get()
            let track = kind == "v" ? fixtures.shakaVideo : fixtures.shakaAudio
            let output = fixtures.directory.appendingPathComponent("cli-\(kind)-\(UUID().uuidString).mp4")
            let result = try Tools.run(player, ["decrypt", track.initSegment.path] + track.segments.map(\.path)
                                           + ["--key", track.keyHex, "-o", output.path])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(try Tools.streamHashes(output)[kind] == fixtures.sourceStreamHashes[kind])
            // The library and the tool write the same bytes.
            #expect([UInt8](try Data(contentsOf: output)) == (try fixtures.decrypt(track)))
        }

        @Test func writesToARedirectedStdout() throws {
            let player = try Tools.player()
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaAudio
            let result = try Tools.run(player, ["decrypt", "-q", track.initSegment.path] + track.segments.map(\.path)
                                           + ["--key", track.keyHex])
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty)
            #expect([UInt8](result.stdout) == (try fixtures.decrypt(track)))
        }

        /// `-o` naming a pipe (or a device such as /dev/null) streams into it and leaves it in
        /// place: a rename over it would replace the pipe or device with a regular file.
        @Test func writesIntoANamedPipeWithoutReplacingIt() throws {
            let player = try Tools.player()
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaAudio
            let fifo = fixtures.directory.appendingPathComponent("pipe-\(UUID().uuidString)").path
            #expect(mkfifo(fifo, 0o600) == 0)
            defer { unlink(fifo) }
            let received = Received()
            let readerDone = DispatchSemaphore(value: 0)
            let reader = Thread {
                if let handle = FileHandle(forReadingAtPath: fifo) {
                    received.set(handle.readDataToEndOfFile())
                }
                readerDone.signal()
            }
            reader.start()
            let result = try Tools.run(player, ["decrypt", "-q", track.initSegment.path] + track.segments.map(\.path)
                                           + ["--key", track.keyHex, "-o", fifo])
            #expect(result.status == 0, "\(result.stderrText)")
            // The reader ends when the player closes its end: wait for that event (bounded generously).
            #expect(readerDone.wait(timeout: .now() + 120) == .success, "the pipe's reader never saw the end of the stream")
            #expect([UInt8](received.get() ?? Data()) == (try fixtures.decrypt(track)))
            var status = stat()
            #expect(stat(fifo, &status) == 0)
            #expect(status.st_mode & S_IFMT == S_IFIFO, "the pipe must still be a pipe")
        }

        final class Received: @unchecked Sendable {
            private let lock = NSLock()
            private var data: Data?
            func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
            func get() -> Data? { lock.lock(); defer { lock.unlock() }; return data }
        }

        /// A --key whose KID is not the track's tenc KID is refused, and no output appears.
        @Test func aKIDMismatchIsRefused() throws {
            let player = try Tools.player()
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaVideo
            let output = fixtures.directory.appendingPathComponent("mismatch-\(UUID().uuidString).mp4")
            let otherKID = String(repeating: "0", count: 32)
            let result = try Tools.run(player, ["decrypt", track.initSegment.path, track.segments[0].path,
                                                "--key", otherKID + ":" + Hex.encode(track.key), "-o", output.path])
            #expect(result.status == 1)
            #expect(result.stderrText.contains(Hex.encode(track.keyID)))
            #expect(!result.stderrText.contains(Hex.encode(track.key)))
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }

        /// cbcs cannot tell a wrong key: the tool succeeds and the samples are garbage (documented).
        @Test func aWrongKeyForTheRightKIDGivesDifferentSamples() throws {
            let player = try Tools.player()
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaAudio
            var wrong = track.key
            wrong[15] ^= 0x80
            let output = fixtures.directory.appendingPathComponent("wrong-\(UUID().uuidString).mp4")
            let result = try Tools.run(player, ["decrypt", track.initSegment.path] + track.segments.map(\.path)
                                           + ["--key", Hex.encode(track.keyID) + ":" + Hex.encode(wrong), "-o", output.path])
            #expect(result.status == 0)
            #expect(try Tools.streamHashes(output)["a"] != fixtures.sourceStreamHashes["a"])
        }

        /// With stdout on a terminal (a pty from util-linux `script`) and no -o, nothing is written.
        @Test func refusesToWriteClearMediaToATerminal() throws {
            let player = try Tools.player()
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaAudio
            let command = [player, "decrypt", track.initSegment.path, track.segments[0].path, "--key", track.keyHex]
                .joined(separator: " ")
            let result = try Tools.run("/usr/bin/script", ["-qec", command, "/dev/null"])
            #expect(result.status == 64)
            let text = String(decoding: result.stdout, as: UTF8.self)
            #expect(text.contains("terminal"))
            #expect(!contains([UInt8](result.stdout), fourCC: "moov"), "no media may reach the terminal")
        }

        /// A truncated segment fails the run with exit 1 and leaves no partial output file.
        @Test func aTruncatedSegmentFailsWithoutOutput() throws {
            let player = try Tools.player()
            let fixtures = try MediaFixtures.get()
            let track = fixtures.shakaAudio
            let bytes = try track.segmentBytes(1)
            let truncated = try fixtures.write(Array(bytes[0 ..< bytes.count - 100]), "truncated-\(UUID().uuidString).m4s")
            let output = fixtures.directory.appendingPathComponent("truncated-\(UUID().uuidString).mp4")
            let result = try Tools.run(player, ["decrypt", track.initSegment.path, track.segments[0].path, truncated.path,
                                                "--key", track.keyHex, "-o", output.path])
            #expect(result.status == 1)
            #expect(result.stderrText.contains(truncated.lastPathComponent))
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}
