import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMJSON
import Testing

extension KeysTests {
    @Suite struct KeyRingTests {
        @Test func generateCreatesPrivateDirectoryKeysAndIndex() throws {
            let temp = try TemporaryDirectory()
            let dataDirectory = temp.appending("data")
            let now = Date(timeIntervalSince1970: 1_767_225_600)
            let change = try KeyRing.generate(dataDirectory: dataDirectory, now: now)
            #expect(change.created == ["r1", "e1", "dev1", "l1"])

            #expect(fileMode(dataDirectory) == 0o700)
            #expect(fileMode(dataDirectory + "/keys") == 0o700)
            for kid in ["r1", "e1", "dev1", "l1"] {
                #expect(fileMode(dataDirectory + "/keys/\(kid).pem") == 0o600, "\(kid).pem")
            }
            #expect(fileMode(dataDirectory + "/keys/index.json") == 0o600)

            let index = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: dataDirectory + "/keys/index.json")))
            let root = try #require(index.object)
            #expect(root["version"] == .number(1))
            #expect(root["active"] == .object(JSONObject([("rsa:2048", .string("r1")), ("ec:secp256r1", .string("e1"))])))
            #expect(root["serials"] == .object(JSONObject([("rsa:2048", .number(1)), ("ec:secp256r1", .number(1))])))
            let keys = try #require(root["keys"]?.array)
            #expect(keys.count == 2)
            #expect(keys.first?.object?["kid"] == .string("r1"))
            #expect(keys.first?.object?["created"] == .number(1_767_225_600))
            #expect(keys.first?.object?["retired"] == nil)
            #expect(root["devIssuer"]?.object?["algorithm"] == .string("ES256"))
            #expect(root["licenseSigners"] == .object(JSONObject([
                ("serial", .number(1)),
                ("keys", .array([.object(JSONObject([("kid", .string("l1")), ("created", .number(1_767_225_600))]))])),
            ])))

            let ring = change.ring
            #expect(ring.active(.rsa2048)?.rsaPrivateKey?.keySizeInBits == 2048)
            #expect(ring.active(.ecSecp256r1)?.ecPrivateKey != nil)
            #expect(ring.devIssuer?.kid == "dev1")
            #expect(ring.activeLicenseSigner?.kid == "l1" && ring.licenseSigners.count == 1)
            // No temporary files are left behind by the atomic writes.
            let names = try FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/keys").sorted()
            #expect(names == [".lock", "dev1.pem", "e1.pem", "index.json", "l1.pem", "r1.pem"])
        }

        @Test func generateOnACompleteRingChangesNothing() throws {
            let temp = try TemporaryDirectory()
            let first = try KeyRing.generate(dataDirectory: temp.path)
            let indexBefore = try Data(contentsOf: URL(fileURLWithPath: temp.path + "/keys/index.json"))
            let second = try KeyRing.generate(dataDirectory: temp.path)
            #expect(second.created.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: temp.path + "/keys/index.json")) == indexBefore)
            #expect(second.ring.active(.rsa2048)?.publicKeyPEM == first.ring.active(.rsa2048)?.publicKeyPEM)
        }

        @Test func generateTightensAnExistingLooseDataDirectory() throws {
            let temp = try TemporaryDirectory()
            let dataDirectory = temp.appending("data")
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o755])
            try KeyRing.generate(dataDirectory: dataDirectory)
            #expect(fileMode(dataDirectory) == 0o700)
        }

        @Test func rotateRetiresTheOldKeyAndListsBoth() throws {
            let temp = try TemporaryDirectory()
            let created = Date(timeIntervalSince1970: 1_767_225_600)
            let rotated = Date(timeIntervalSince1970: 1_769_904_000)
            try KeyRing.generate(dataDirectory: temp.path, now: created)
            let change = try KeyRing.rotate(.rsa2048, dataDirectory: temp.path, now: rotated)
            #expect(change.created == ["r2"])
            #expect(change.retired == ["r1"])
            let ring = try KeyRing.load(dataDirectory: temp.path)
            #expect(ring.entries.map(\.kid) == ["r1", "e1", "r2"])
            #expect(ring.active(.rsa2048)?.kid == "r2")
            #expect(ring.key(kid: "r1")?.entry.retired == rotated)
            #expect(ring.key(kid: "r1")?.entry.created == created)
            #expect(ring.active(.ecSecp256r1)?.kid == "e1")
            #expect(fileMode(temp.path + "/keys/r2.pem") == 0o600)
        }

        @Test func oldKeysStillUnwrapAfterRotation() throws {
            let temp = try TemporaryDirectory()
            let ring1 = try KeyRing.generate(dataDirectory: temp.path).ring
            let payloadKey = Data((0..<32).map { UInt8($0) })
            let r1 = try #require(ring1.active(.rsa2048))
            let wrapped = try r1.rsaPrivateKey!.publicKey.encrypt(payloadKey, padding: .oaepSHA1)

            let ring2 = try KeyRing.rotate(.rsa2048, dataDirectory: temp.path).ring
            // Named by kid: exactly that key.
            let byKid = try ring2.unwrapRSA(wrapped, kid: "r1")
            #expect(byKid.key == payloadKey && byKid.kid == "r1")
            // No kid: the active key r2 fails, then the retired r1 is tried.
            let byFallback = try ring2.unwrapRSA(wrapped, kid: nil)
            #expect(byFallback.key == payloadKey && byFallback.kid == "r1")
            // A kid naming another key is never a fallback.
            #expect(throws: KeyRingError(.unwrapFailed, "")) { try ring2.unwrapRSA(wrapped, kid: "r2") }
            #expect(throws: KeyRingError(.unknownKey, "")) { try ring2.unwrapRSA(wrapped, kid: "r9") }
            #expect(throws: KeyRingError(.unknownKey, "")) { try ring2.unwrapRSA(wrapped, kid: "e1") }

            // Removing the retired key ends its unwrapping.
            let ring3 = try KeyRing.remove(kid: "r1", dataDirectory: temp.path).ring
            #expect(throws: KeyRingError(.unwrapFailed, "")) { try ring3.unwrapRSA(wrapped, kid: nil) }
            #expect(!FileManager.default.fileExists(atPath: temp.path + "/keys/r1.pem"))
        }

        @Test func unwrapsAKeyWrappedByTheOpenSSLCommandLine() throws {
            let temp = try TemporaryDirectory()
            let ring = try KeyRing.generate(dataDirectory: temp.path).ring
            let publicKey = try temp.write("r1-public.pem", try #require(ring.active(.rsa2048)).publicKeyPEM)
            let payloadKey = Data((0..<16).map { UInt8(0xA0 + $0) })
            let result = try runProcess("/usr/bin/openssl", [
                "pkeyutl", "-encrypt", "-pubin", "-inkey", publicKey,
                "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha1", "-pkeyopt", "rsa_mgf1_md:sha1",
            ], stdin: payloadKey)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try ring.unwrapRSA(result.stdout, kid: nil).key == payloadKey)
        }

        @Test func ecWrappedKeysUnwrapAcrossRotation() throws {
            let temp = try TemporaryDirectory()
            let ring1 = try KeyRing.generate(dataDirectory: temp.path).ring
            let payloadKey = Data((0..<16).map { UInt8($0 &* 7) })
            let e1 = try #require(ring1.active(.ecSecp256r1)?.ecPrivateKey?.publicKey)
            let (wrapped, ephemeral) = try ecWrap(payloadKey, to: e1)

            let ring2 = try KeyRing.rotate(.ecSecp256r1, dataDirectory: temp.path).ring
            #expect(ring2.active(.ecSecp256r1)?.kid == "e2")
            #expect(try ring2.unwrapEC(wrapped, ephemeralPublicKey: ephemeral, kid: "e1").key == payloadKey)
            let fallback = try ring2.unwrapEC(wrapped, ephemeralPublicKey: ephemeral, kid: nil)
            #expect(fallback.key == payloadKey && fallback.kid == "e1")
            #expect(throws: KeyRingError(.unwrapFailed, "")) {
                try ring2.unwrapEC(wrapped, ephemeralPublicKey: ephemeral, kid: "e2")
            }
            var tampered = wrapped
            tampered[tampered.count - 1] ^= 1
            #expect(throws: KeyRingError(.unwrapFailed, "")) {
                try ring2.unwrapEC(tampered, ephemeralPublicKey: ephemeral, kid: nil)
            }
            #expect(throws: KeyRingError(.unwrapFailed, "")) {
                try ring2.unwrapEC(wrapped.prefix(20), ephemeralPublicKey: ephemeral, kid: nil)
            }
        }

        /// docs/formats.md "Cryptographic conventions", `ec-wrapped`: ECDH, HKDF-SHA256 (salt SHA-256("TDF"), empty info), AES-256-GCM.
        private func ecWrap(_ key: Data, to recipient: ECP256.KeyAgreement.PublicKey) throws -> (Data, ECP256.KeyAgreement.PublicKey) {
            let ephemeral = try ECP256.KeyAgreement.PrivateKey()
            let secret = try ephemeral.sharedSecretFromKeyAgreement(with: recipient)
            let wrapKey = try secret.hkdfDerivedSymmetricKey(salt: SHA256Digest.hash(data: Data("TDF".utf8)), sharedInfo: Data(),
                                                             outputByteCount: 32)
            return (try AESCipher.GCM.seal(key, using: wrapKey).combined, ephemeral.publicKey)
        }

        @Test func candidatesFollowKidThenActiveThenRetiredNewestFirst() throws {
            let temp = try TemporaryDirectory()
            try KeyRing.generate(dataDirectory: temp.path, now: Date(timeIntervalSince1970: 1000))
            try KeyRing.rotate(.rsa2048, dataDirectory: temp.path, now: Date(timeIntervalSince1970: 2000))
            let ring = try KeyRing.rotate(.rsa2048, dataDirectory: temp.path, now: Date(timeIntervalSince1970: 3000)).ring
            #expect(ring.candidates(kid: nil, algorithm: .rsa2048).map(\.kid) == ["r3", "r2", "r1"])
            #expect(ring.candidates(kid: "r2", algorithm: .rsa2048).map(\.kid) == ["r2"])
            #expect(ring.candidates(kid: "r2", algorithm: .ecSecp256r1).isEmpty)
            #expect(ring.candidates(kid: nil, algorithm: .ecSecp256r1).map(\.kid) == ["e1"])
        }

        @Test func removeRefusesActiveAndIssuerKeysAndNeverReusesKids() throws {
            let temp = try TemporaryDirectory()
            try KeyRing.generate(dataDirectory: temp.path)
            #expect(throws: KeyRingError(.keyInUse, "")) { try KeyRing.remove(kid: "r1", dataDirectory: temp.path) }
            #expect(throws: KeyRingError(.keyInUse, "")) { try KeyRing.remove(kid: "dev1", dataDirectory: temp.path) }
            #expect(throws: KeyRingError(.unknownKey, "")) { try KeyRing.remove(kid: "r7", dataDirectory: temp.path) }
            #expect(throws: KeyRingError(.unknownKey, "")) { try KeyRing.remove(kid: "../index", dataDirectory: temp.path) }

            try KeyRing.rotate(.ecSecp256r1, dataDirectory: temp.path)
            let afterRemove = try KeyRing.remove(kid: "e1", dataDirectory: temp.path)
            #expect(afterRemove.removed == ["e1"])
            #expect(afterRemove.ring.entries.map(\.kid) == ["r1", "e2"])
            let rotated = try KeyRing.rotate(.ecSecp256r1, dataDirectory: temp.path)
            #expect(rotated.created == ["e3"])
        }

        @Test func operationsOnAMissingRingSayHowToMakeOne() throws {
            let temp = try TemporaryDirectory()
            #expect(!KeyRing.exists(dataDirectory: temp.path))
            let error = #expect(throws: KeyRingError.self) { try KeyRing.load(dataDirectory: temp.path) }
            #expect(error?.code == .notInitialized)
            #expect(error?.reason.contains("kas keys generate") == true)
            #expect(throws: KeyRingError(.notInitialized, "")) { try KeyRing.rotate(.rsa2048, dataDirectory: temp.path) }
            #expect(throws: KeyRingError(.notInitialized, "")) { try KeyRing.remove(kid: "r1", dataDirectory: temp.path) }
        }

        @Test func readableKeyFilesAndDirectoriesAreRefused() throws {
            let temp = try TemporaryDirectory()
            try KeyRing.generate(dataDirectory: temp.path)
            chmod(temp.path + "/keys/e1.pem", 0o644)
            let error = #expect(throws: KeyRingError.self) { try KeyRing.load(dataDirectory: temp.path) }
            #expect(error?.code == .insecurePermissions)
            #expect(error?.reason.contains("e1.pem") == true)
            chmod(temp.path + "/keys/e1.pem", 0o600)
            chmod(temp.path + "/keys", 0o750)
            #expect(throws: KeyRingError(.insecurePermissions, "")) { try KeyRing.load(dataDirectory: temp.path) }
            chmod(temp.path + "/keys", 0o700)
            _ = try KeyRing.load(dataDirectory: temp.path)
        }

        @Test func corruptKeyFilesGiveClearErrors() throws {
            let temp = try TemporaryDirectory()
            let ring = try KeyRing.generate(dataDirectory: temp.path).ring
            let path = temp.path + "/keys/r1.pem"
            let original = try Data(contentsOf: URL(fileURLWithPath: path))

            // Garbage, a truncated PEM, the wrong algorithm's key, a missing file, a symlink.
            let replacements: [(String, Data?)] = [
                ("garbage", Data("not a key".utf8)),
                ("truncated", original.prefix(original.count / 2)),
                ("wrong algorithm", Data(try #require(ring.active(.ecSecp256r1)?.ecPrivateKey).pemRepresentation.utf8)),
                ("missing", nil),
            ]
            for (label, replacement) in replacements {
                unlink(path)
                if let replacement {
                    #expect(FileManager.default.createFile(atPath: path, contents: replacement, attributes: [.posixPermissions: 0o600]))
                }
                let error = #expect(throws: KeyRingError.self, "\(label)") { try KeyRing.load(dataDirectory: temp.path) }
                #expect(error?.code == .corruptKey, "\(label)")
                #expect(error?.reason.contains("r1.pem") == true, "\(label)")
            }
            unlink(path)
            symlink(temp.path + "/keys/e1.pem", path)
            #expect(throws: KeyRingError(.io, "")) { try KeyRing.load(dataDirectory: temp.path) }
        }

        @Test func holderReloadsAfterRotationAndKeepsTheOldSnapshotOnFailure() throws {
            let temp = try TemporaryDirectory()
            let holder = KeyRingHolder(try KeyRing.generate(dataDirectory: temp.path).ring)
            let snapshot = holder.current
            try KeyRing.rotate(.rsa2048, dataDirectory: temp.path)
            #expect(holder.current.active(.rsa2048)?.kid == "r1")
            try holder.reload()
            #expect(holder.current.active(.rsa2048)?.kid == "r2")
            #expect(snapshot.active(.rsa2048)?.kid == "r1")

            try Data("{".utf8).write(to: URL(fileURLWithPath: temp.path + "/keys/index.json"))
            #expect(throws: KeyRingError(.corruptIndex, "")) { try holder.reload() }
            #expect(holder.current.active(.rsa2048)?.kid == "r2")
        }

        /// A ring from before offline licences gains its signing key on `generate`; an index whose
        /// licence signers are not exactly one active key is refused.
        @Test func licenceSignersAreAddedToOlderRingsAndCheckedOnLoad() throws {
            let temp = try TemporaryDirectory()
            try KeyRing.generate(dataDirectory: temp.path)
            let indexPath = temp.path + "/keys/index.json"
            var root = try #require(try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: indexPath))).object)
            root["licenseSigners"] = nil
            try JSONWriter.write(.object(root)).write(to: URL(fileURLWithPath: indexPath))
            #expect(try KeyRing.load(dataDirectory: temp.path).licenseSigners.isEmpty)
            let added = try KeyRing.generate(dataDirectory: temp.path)
            #expect(added.created == ["l1"] && added.ring.activeLicenseSigner?.kid == "l1")

            root = try #require(try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: indexPath))).object)
            let twoActive = JSONValue.object(JSONObject([
                ("serial", .number(2)),
                ("keys", .array([.object(JSONObject([("kid", .string("l1")), ("created", .number(1))])),
                                 .object(JSONObject([("kid", .string("l2")), ("created", .number(1))]))])),
            ]))
            root["licenseSigners"] = twoActive
            try JSONWriter.write(.object(root)).write(to: URL(fileURLWithPath: indexPath))
            #expect(throws: KeyRingError(.corruptIndex, "")) { try KeyRing.load(dataDirectory: temp.path) }
        }

        @Test func concurrentRotationsAreSerializedByTheLock() async throws {
            let temp = try TemporaryDirectory()
            try KeyRing.generate(dataDirectory: temp.path)
            let path = temp.path
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { try KeyRing.rotate(.ecSecp256r1, dataDirectory: path) }
                }
                try await group.waitForAll()
            }
            let ring = try KeyRing.load(dataDirectory: temp.path)
            #expect(Set(ring.entries.filter { $0.algorithm == .ecSecp256r1 }.map(\.kid)) == ["e1", "e2", "e3", "e4", "e5"])
            #expect(ring.active(.ecSecp256r1)?.kid == "e5")
        }

        @Test func descriptionsNeverShowKeyMaterial() throws {
            let temp = try TemporaryDirectory()
            let ring = try KeyRing.generate(dataDirectory: temp.path).ring
            let key = try #require(ring.active(.rsa2048))
            let text = "\(key) \(String(describing: ring.devIssuer))"
            #expect(!text.contains("BEGIN"))
            #expect(text.contains("r1"))
        }
    }
}
