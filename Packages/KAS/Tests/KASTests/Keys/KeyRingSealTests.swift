import Foundation
@testable import KASDomain
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

extension KeysTests {
    @Suite struct KeyRingSealTests {
        static let kids = ["r1", "e1", "dev1", "l1"]

        static func files(_ dataDirectory: String) throws -> [String: Data] {
            var files: [String: Data] = [:]
            for kid in kids {
                files[kid] = try Data(contentsOf: URL(fileURLWithPath: dataDirectory + "/keys/\(kid).pem"))
            }
            return files
        }

        /// A generated ring sealed under a fresh key.
        static func sealedRing(_ temp: TemporaryDirectory) throws -> (data: String, key: KeyRingSealKey) {
            let data = temp.appending("data")
            try KeyRing.generate(dataDirectory: data)
            let key = try KeyRingSealKey.random()
            try KeyRing.seal(dataDirectory: data, sealKey: key)
            return (data, key)
        }

        static func isSealed(_ data: Data) -> Bool { data.starts(with: Array("KASSEAL".utf8) + [1]) }

        @Test func sealThenUnsealRestoresByteIdenticalPKCS8Files() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            let plain = try KeyRing.generate(dataDirectory: data)
            let before = try Self.files(data)
            let key = try KeyRingSealKey.random()

            let sealed = try KeyRing.seal(dataDirectory: data, sealKey: key)
            #expect(sealed.converted == 4 && sealed.ring.isSealed)
            for (kid, bytes) in try Self.files(data) {
                #expect(Self.isSealed(bytes), "\(kid)")
                #expect(fileMode(data + "/keys/\(kid).pem") == 0o600)
                // Nothing of the PEM survives in the sealed file.
                #expect(bytes.range(of: Data("PRIVATE KEY".utf8)) == nil)
            }
            #expect(fileMode(data + "/keys/seal-check") == 0o600)
            // The opened ring is the same keys.
            let opened = try KeyRing.load(dataDirectory: data, sealKey: key)
            #expect(opened.active(.rsa2048)?.publicKeyPEM == plain.ring.active(.rsa2048)?.publicKeyPEM)
            #expect(opened.active(.ecSecp256r1)?.publicKeyPEM == plain.ring.active(.ecSecp256r1)?.publicKeyPEM)
            #expect(opened.devIssuer != nil && opened.activeLicenseSigner != nil)
            // Sealing again changes nothing.
            #expect(try KeyRing.seal(dataDirectory: data, sealKey: key).converted == 0)

            let unsealed = try KeyRing.unseal(dataDirectory: data, sealKey: key)
            #expect(unsealed.converted == 4 && !unsealed.ring.isSealed)
            #expect(try Self.files(data) == before)
            #expect(!FileManager.default.fileExists(atPath: data + "/keys/seal-check"))
            #expect(try !KeyRing.load(dataDirectory: data).isSealed)
        }

        @Test func missingAndWrongKeysAreRefusedWithoutNamingAKey() throws {
            let temp = try TemporaryDirectory()
            let (data, _) = try Self.sealedRing(temp)
            let wrong = try KeyRingSealKey.random()

            let failures: [(KeyRingError.Code, () throws(KeyRingError) -> Void)] = [
                (.sealKeyMissing, { () throws(KeyRingError) in _ = try KeyRing.load(dataDirectory: data) }),
                (.sealMismatch, { () throws(KeyRingError) in _ = try KeyRing.load(dataDirectory: data, sealKey: wrong) }),
                (.sealKeyMissing, { () throws(KeyRingError) in _ = try KeyRing.rotate(.rsa2048, dataDirectory: data) }),
                (.sealMismatch, { () throws(KeyRingError) in _ = try KeyRing.rotate(.rsa2048, dataDirectory: data, sealKey: wrong) }),
                (.sealMismatch, { () throws(KeyRingError) in _ = try KeyRing.seal(dataDirectory: data, sealKey: wrong) }),
                (.sealMismatch, { () throws(KeyRingError) in _ = try KeyRing.unseal(dataDirectory: data, sealKey: wrong) }),
            ]
            for (code, body) in failures {
                do throws(KeyRingError) {
                    try body()
                    Issue.record("expected \(code)")
                } catch {
                    #expect(error.code == code)
                    Self.expectNamesNoKey(error.description, data)
                }
            }
            do throws(KeyRingError) {
                _ = try KeyRing.load(dataDirectory: data)
            } catch {
                #expect(error.reason.hasPrefix("the key ring is sealed: set KAS_KEY_RING_SEAL_KEY_FILE"))
            }
            do throws(KeyRingError) {
                _ = try KeyRing.load(dataDirectory: data, sealKey: wrong)
            } catch {
                #expect(error.reason == "the key-encryption key does not open the key ring")
            }
            // A refused rotation wrote nothing.
            #expect(try Self.files(data).keys.sorted() == Self.kids.sorted())
            #expect(!FileManager.default.fileExists(atPath: data + "/keys/r2.pem"))
        }

        static func expectNamesNoKey(_ text: String, _ data: String) {
            for kid in kids { #expect(!text.contains("\(kid).pem") && !text.contains("'\(kid)'"), "\(text)") }
            #expect(!text.contains(data), "\(text)")
        }

        @Test func aFlippedByteInASealedFileIsRefused() throws {
            let temp = try TemporaryDirectory()
            let (data, key) = try Self.sealedRing(temp)
            for position in [3, 20, -1] {   // header, ciphertext, tag
                let path = data + "/keys/e1.pem"
                let original = try Data(contentsOf: URL(fileURLWithPath: path))
                var bytes = original
                bytes[position < 0 ? bytes.count + position : position] ^= 0x01
                try AtomicFileWriter.write(bytes, to: path, mode: 0o600)
                #expect(throws: KeyRingError(.sealMismatch, "")) { try KeyRing.load(dataDirectory: data, sealKey: key) }
                // A rerun of seal does not take the damaged file for a plain key to seal.
                #expect(throws: KeyRingError(.sealMismatch, "")) { try KeyRing.seal(dataDirectory: data, sealKey: key) }
                do throws(KeyRingError) {
                    _ = try KeyRing.load(dataDirectory: data, sealKey: key)
                } catch {
                    Self.expectNamesNoKey(error.description, data)
                }
                try AtomicFileWriter.write(original, to: path, mode: 0o600)
            }
            // A sealed file moved to another kid's name does not open either (the kid is bound).
            let e1 = try Data(contentsOf: URL(fileURLWithPath: data + "/keys/e1.pem"))
            try AtomicFileWriter.write(e1, to: data + "/keys/dev1.pem", mode: 0o600)
            #expect(throws: KeyRingError(.sealMismatch, "")) { try KeyRing.load(dataDirectory: data, sealKey: key) }
        }

        @Test func rotateGenerateAndReloadWhileSealedWriteSealedFiles() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            try KeyRing.generate(dataDirectory: data)
            let key = try KeyRingSealKey.random()
            let holder = KeyRingHolder(try KeyRing.seal(dataDirectory: data, sealKey: key).ring)

            let rotated = try KeyRing.rotate(.ecSecp256r1, dataDirectory: data, sealKey: key)
            #expect(rotated.created == ["e2"] && rotated.ring.isSealed)
            try KeyRing.rotateLicenseSigner(dataDirectory: data, sealKey: key)
            for kid in ["e2", "l2"] {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: data + "/keys/\(kid).pem"))
                #expect(Self.isSealed(bytes), "\(kid)")
            }
            // SIGHUP's reload opens the rotated sealed ring with the key it was opened with.
            #expect(try holder.reload().active(.ecSecp256r1)?.kid == "e2")
            try KeyRing.remove(kid: "e1", dataDirectory: data, sealKey: key)
            #expect(try holder.reload().key(kid: "e1") == nil)
            // A second node sharing the ring opens it with the same key.
            #expect(try KeyRing.load(dataDirectory: data, sealKey: key).active(.ecSecp256r1)?.kid == "e2")
        }

        @Test func anInterruptedSealIsRefusedThenFinishedByARerun() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            try KeyRing.generate(dataDirectory: data)
            let before = try Self.files(data)
            let key = try KeyRingSealKey.random()
            // What a run killed after two files leaves: the seal check and two sealed files.
            try KeyRingSeal.writeCheck(key, data)
            for kid in ["r1", "dev1"] {
                let sealed = try SealedKeyFile.seal(Array(before[kid]!), name: kid, with: key)
                try AtomicFileWriter.write(sealed, to: data + "/keys/\(kid).pem", mode: 0o600)
            }
            #expect(throws: KeyRingError(.partlySealed, "")) { try KeyRing.load(dataDirectory: data, sealKey: key) }
            #expect(throws: KeyRingError(.sealKeyMissing, "")) { try KeyRing.load(dataDirectory: data) }

            #expect(try KeyRing.seal(dataDirectory: data, sealKey: key).converted == 2)
            #expect(try Self.files(data).values.allSatisfy(Self.isSealed))
            #expect(try KeyRing.load(dataDirectory: data, sealKey: key).isSealed)

            // And an interrupted unseal: one file back to PEM, the seal check still there.
            try AtomicFileWriter.write(before["e1"]!, to: data + "/keys/e1.pem", mode: 0o600)
            #expect(throws: KeyRingError(.partlySealed, "")) { try KeyRing.load(dataDirectory: data, sealKey: key) }
            #expect(try KeyRing.unseal(dataDirectory: data, sealKey: key).converted == 3)
            #expect(try Self.files(data) == before)
        }

        @Test func sealKeySourcesAndTheirFailures() throws {
            let temp = try TemporaryDirectory()
            let raw = Data((0..<32).map { UInt8($0) })
            let rawFile = temp.appending("raw.key")
            try AtomicFileWriter.write(raw, to: rawFile, mode: 0o600)
            let base64File = temp.appending("b64.key")
            try AtomicFileWriter.write(Data((raw.base64EncodedString() + "\n").utf8), to: base64File, mode: 0o400)
            let credentials = temp.appending("creds")
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
            try AtomicFileWriter.write(raw, to: credentials + "/kas-seal-key", mode: 0o400)

            let data = temp.appending("data")
            try KeyRing.generate(dataDirectory: data)
            try KeyRing.seal(dataDirectory: data, sealKey: try KeyRingSealKey(bytes: raw))
            let sources: [[String: String]] = [
                ["KAS_KEY_RING_SEAL_KEY_FILE": rawFile],
                ["KAS_KEY_RING_SEAL_KEY_FILE": base64File],
                ["KAS_KEY_RING_SEAL_KEY": raw.base64EncodedString()],
                ["CREDENTIALS_DIRECTORY": credentials],
            ]
            for environment in sources {
                let key = try #require(try KeyRingSealKey.resolve(environment: environment))
                #expect(try KeyRing.load(dataDirectory: data, sealKey: key).isSealed)
            }
            #expect(try KeyRingSealKey.resolve(file: rawFile, environment: [:]) != nil)
            #expect(try KeyRingSealKey.resolve(environment: ["CREDENTIALS_DIRECTORY": temp.appending("none")]) == nil)
            #expect(try KeyRingSealKey.resolve(environment: [:]) == nil)

            let loose = temp.appending("loose.key")
            try AtomicFileWriter.write(raw, to: loose, mode: 0o644)
            let secret = raw.base64EncodedString()
            let bad: [[String: String]] = [
                ["KAS_KEY_RING_SEAL_KEY": "c2hvcnQ="],
                ["KAS_KEY_RING_SEAL_KEY": "not base64!"],
                ["KAS_KEY_RING_SEAL_KEY_FILE": temp.appending("missing.key")],
                ["KAS_KEY_RING_SEAL_KEY_FILE": loose],
            ]
            for environment in bad {
                do throws(KeyRingError) {
                    _ = try KeyRingSealKey.resolve(environment: environment)
                    Issue.record("expected a refusal for \(environment)")
                } catch {
                    #expect(error.code == .sealKeyInvalid || error.code == .insecurePermissions)
                    #expect(!error.description.contains(secret))
                }
            }
            #expect("\(try KeyRingSealKey(bytes: raw))" == "KeyRingSealKey(256 bits)")

            // keyRing.sealKeyFile in the configuration file, relative to the file's directory.
            let file = try KASConfiguration.fileOverrides(bytes: Array(#"{"keyRing": {"sealKeyFile": "kas-seal.key"}}"#.utf8),
                                                          file: "kas.json", baseDirectory: "/etc/mediadrm")
            #expect(file.keyRingSealKeyFile == "/etc/mediadrm/kas-seal.key")
            #expect(throws: KASConfigurationError.self) {
                try KASConfiguration.fileOverrides(bytes: Array(#"{"keyRing": {"sealKey": "x"}}"#.utf8), file: "kas.json",
                                                   baseDirectory: "/")
            }
        }
    }
}
