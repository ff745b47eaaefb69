import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMJSON
import Testing

/// The delivery settings, title paths and the origin secret file: what an operator writes, and
/// what hostile or careless input gets (a typed error naming the problem, never a crash or a
/// secret in the message).
extension DeliveryTests {
    @Suite struct Settings {
        @Test func theDeliverySectionIsReadFromEveryLayer() throws {
            let file = try KASConfiguration.fileOverrides(bytes: Array(#"""
                {"delivery": {"originURL": "https://media.example.com/", "originSecretFile": "origin.conf",
                              "deliverySecretFile": "/etc/kas/delivery.secret", "mediaURLMarginSeconds": 900,
                              "licenseURLSeconds": 120, "titlePageBaseURL": "https://www.example.com/watch/"}}
                """#.utf8), file: "kas.json", baseDirectory: "/etc/kas")
            let configuration = try KASConfiguration.resolve([file])
            #expect(configuration.delivery.originURL == "https://media.example.com")
            #expect(configuration.delivery.originSecretFile == "/etc/kas/origin.conf")
            #expect(configuration.delivery.deliverySecretFile == "/etc/kas/delivery.secret")
            #expect(configuration.delivery.mediaURLMarginSeconds == 900)
            #expect(configuration.delivery.licenseURLSeconds == 120)
            #expect(configuration.delivery.titlePageBaseURL == "https://www.example.com/watch")
            // The printed configuration reads back the same.
            let printed = try KASConfiguration.fileOverrides(bytes: Array(JSONWriter.write(configuration.jsonValue)),
                                                             file: "printed.json", baseDirectory: "/elsewhere")
            #expect(try KASConfiguration.resolve([printed]).delivery == configuration.delivery)

            let environment = try KASConfiguration.environmentOverrides([
                "KAS_ORIGIN_URL": "http://127.0.0.1:8088", "KAS_ORIGIN_SECRET_FILE": "/run/origin.conf",
                "KAS_MEDIA_URL_MARGIN_SECONDS": "30"])
            let flags = try KASConfiguration.flagOverrides(originURL: "http://127.0.0.1:9099", deliverySecretFile: "d.secret")
            let merged = try KASConfiguration.resolve([file, environment, flags])
            #expect(merged.delivery.originURL == "http://127.0.0.1:9099")
            #expect(merged.delivery.originSecretFile == "/run/origin.conf")
            #expect(merged.delivery.deliverySecretFile == "d.secret")
            #expect(merged.delivery.mediaURLMarginSeconds == 30)
        }

        @Test func carelessSettingsAreRefusedByName() throws {
            #expect(throws: KASConfigurationError.self) {
                try KASConfiguration.fileOverrides(bytes: Array(#"{"delivery": {"originSecret": "x"}}"#.utf8),
                                                   file: "kas.json", baseDirectory: "/")
            }
            #expect(throws: KASConfigurationError.self) {
                try KASConfiguration.environmentOverrides(["KAS_LICENSE_URL_SECONDS": "0"])
            }
            #expect(throws: KASConfigurationError.self) {
                try KASConfiguration.flagOverrides(originURL: "ftp://origin")
            }
            #expect(throws: KASConfigurationError.self) {
                try KASConfiguration.environmentOverrides(["KAS_TITLE_PAGE_BASE_URL": "https://www.example.com/watch?id="])
            }
            // A secret without the origin it signs for.
            do {
                _ = try KASConfiguration.resolve([try KASConfiguration.flagOverrides(originSecretFile: "/etc/origin.conf")])
                Issue.record("an origin secret without an origin URL was accepted")
            } catch {
                #expect(error.reason.contains("delivery.originURL"))
            }
        }

        /// Cloud Video Kit's tenant: file only, printable ASCII without spaces, at most 128 bytes,
        /// printed back as read.
        @Test func theTenantIDIsReadStrictly() throws {
            func read(_ value: String) throws -> KASConfiguration {
                try KASConfiguration.resolve([try KASConfiguration.fileOverrides(
                    bytes: Array(#"{"delivery": {"tenantID": \#(value)}}"#.utf8), file: "kas.json", baseDirectory: "/")])
            }
            let configuration = try read(#""b7c1e2d4-5a6f-4b8c-9d0e-1f2a3b4c5d6e""#)
            #expect(configuration.delivery.tenantID == "b7c1e2d4-5a6f-4b8c-9d0e-1f2a3b4c5d6e")
            let printed = try KASConfiguration.fileOverrides(bytes: Array(JSONWriter.write(configuration.jsonValue)),
                                                             file: "printed.json", baseDirectory: "/")
            #expect(try KASConfiguration.resolve([printed]).delivery.tenantID == configuration.delivery.tenantID)
            #expect(try KASConfiguration.resolve([]).delivery.tenantID == nil)
            for value in [#""""#, #""a b""#, #""caf\u00e9""#, "7", "\"" + String(repeating: "a", count: 129) + "\""] {
                #expect(throws: KASConfigurationError.self, "\(value)") { _ = try read(value) }
            }
            #expect(try read("\"" + String(repeating: "a", count: 128) + "\"").delivery.tenantID?.count == 128)
        }

        @Test func titlePathsAreOneEntryUnderTheRoot() throws {
            #expect(try TitlePath("/talk.tdf").entryPath == "/talk.tdf")
            #expect(try TitlePath("/talk-hls/").entryPath == "/talk-hls/master.m3u8")
            #expect(try TitlePath("/talk-hls/").prefix == "/talk-hls/")
            for bad in ["", "/", "talk.tdf", "/a/b.tdf", "/../x", "/.hidden", "/sp ace", "/q?x", "/%2e", "/" + String(repeating: "a", count: 129),
                        "/a\u{0}b", "/ü"] {
                #expect(throws: TitlePathError.self, "\(bad)") { try TitlePath(bad) }
            }
        }

        @Test func theOriginSecretFileIsPrivateAndExact() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kas-origin-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/origin.conf"
            #expect(try OriginSecret.createIfAbsent(path: path))
            #expect(try !OriginSecret.createIfAbsent(path: path))
            #expect(fileMode(path) == 0o600)
            let first = try OriginSecret.load(path: path)
            #expect(first.signingSlot == 1)
            #expect(!"\(first)".contains(first.signingSecret))
            #expect(try OriginSecret.rotate(path: path) == 2)
            let second = try OriginSecret.load(path: path)
            #expect(second.signingSlot == 2 && second.signingSecret != first.signingSecret)
            // Slot 1 kept its secret through the rotation.
            #expect(try String(contentsOfFile: path, encoding: .utf8).contains(first.signingSecret))

            let secret = String(repeating: "s", count: 40)
            let cases = [
                "set $origin_secret_1 \"\(secret)\";\nset $origin_signing_slot \"1\";\n",                     // one slot
                "set $origin_secret_1 \"\(secret)\";\nset $origin_secret_2 \"short\";\nset $origin_signing_slot \"1\";\n",
                "set $origin_secret_1 \"\(secret)\";\nset $origin_secret_2 \"\(secret)\";\nset $origin_signing_slot \"3\";\n",
                "set $origin_secret_1 \"\(secret)\"; include /etc/passwd;\n",
                "set $origin_secret_1 \"\(secret)\\\";\n",
                String(repeating: "x", count: 2 << 20),
            ]
            for (index, text) in cases.enumerated() {
                let file = directory + "/bad\(index).conf"
                _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
                do {
                    _ = try OriginSecret.load(path: file)
                    Issue.record("case \(index) was accepted")
                } catch {
                    #expect(!error.reason.contains(secret), "case \(index): \(error.reason)")
                }
            }
            // Readable by others: refused like an ssh identity.
            let open = directory + "/open.conf"
            try FileManager.default.copyItem(atPath: path, toPath: open)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open)
            #expect(throws: DeliverySecretError.self) { try OriginSecret.load(path: open) }
        }

        @Test func licenceURLSignaturesBindPlaybackComponentAndExpiry() throws {
            let signer = LicenseURLSigner(key: try LicenseURLSigner.randomKey())
            let query = signer.query(playbackID: "p1", component: "video", expires: 1_800_000_000)
            let sig = try #require(query.split(separator: "=").last.map(String.init))
            #expect(signer.isValid(sig, playbackID: "p1", component: "video", expires: 1_800_000_000))
            #expect(!signer.isValid(sig, playbackID: "p2", component: "video", expires: 1_800_000_000))
            #expect(!signer.isValid(sig, playbackID: "p1", component: "audio", expires: 1_800_000_000))
            #expect(!signer.isValid(sig, playbackID: "p1", component: "video", expires: 1_800_000_001))
            #expect(!LicenseURLSigner(key: try LicenseURLSigner.randomKey()).isValid(sig, playbackID: "p1", component: "video", expires: 1_800_000_000))
            for junk in ["", "%%%", String(repeating: "A", count: 10_000), "AAAA"] {
                #expect(!signer.isValid(junk, playbackID: "p1", component: "video", expires: 1_800_000_000))
            }
        }
    }
}
