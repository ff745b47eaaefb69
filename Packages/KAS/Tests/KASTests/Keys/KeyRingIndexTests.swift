import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Testing

extension KeysTests {
    @Suite struct KeyRingIndexTests {
        static let valid = """
        {"version": 1,
         "active": {"rsa:2048": "r2", "ec:secp256r1": "e1"},
         "serials": {"rsa:2048": 2, "ec:secp256r1": 1},
         "keys": [
           {"kid": "r1", "algorithm": "rsa:2048", "created": 1000, "retired": 2000},
           {"kid": "e1", "algorithm": "ec:secp256r1", "created": 1000},
           {"kid": "r2", "algorithm": "rsa:2048", "created": 2000}
         ],
         "devIssuer": {"kid": "dev1", "algorithm": "ES256", "created": 1000}}
        """

        @Test func parsesTheDocumentedShapeAndWritesItBack() throws {
            let index = try KeyRingIndex(bytes: Array(Self.valid.utf8), file: "index.json")
            #expect(index.entries.map(\.kid) == ["r1", "e1", "r2"])
            #expect(index.active(.rsa2048)?.kid == "r2")
            #expect(index.entries.first?.retired == Date(timeIntervalSince1970: 2000))
            #expect(index.serials[.rsa2048] == 2)
            #expect(index.devIssuer?.kid == "dev1")
            let reread = try KeyRingIndex(bytes: Array(index.bytes), file: "index.json")
            #expect(reread == index)
        }

        @Test func everyTruncationIsACorruptIndex() throws {
            let bytes = Array(Self.valid.utf8)
            for length in 0..<bytes.count {
                #expect(throws: KeyRingError(.corruptIndex, ""), "prefix \(length)") {
                    try KeyRingIndex(bytes: Array(bytes.prefix(length)), file: "index.json")
                }
            }
        }

        @Test(arguments: [
            ("unknown top-level key", #"{"version":1,"active":{},"serials":{},"keys":[],"extra":1}"#),
            ("unknown key member", #"{"version":1,"active":{"rsa:2048":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1,"path":"/etc/passwd"}]}"#),
            ("version 2", #"{"version":2,"active":{},"serials":{},"keys":[]}"#),
            ("version string", #"{"version":"1","active":{},"serials":{},"keys":[]}"#),
            ("missing keys", #"{"version":1,"active":{},"serials":{}}"#),
            ("keys not array", #"{"version":1,"active":{},"serials":{},"keys":{}}"#),
            ("key not object", #"{"version":1,"active":{},"serials":{},"keys":[1]}"#),
            ("duplicate JSON member", #"{"version":1,"version":1,"active":{},"serials":{},"keys":[]}"#),
            ("path traversal kid", #"{"version":1,"active":{"rsa:2048":"../x"},"serials":{"rsa:2048":1},"keys":[{"kid":"../x","algorithm":"rsa:2048","created":1}]}"#),
            ("empty kid", #"{"version":1,"active":{},"serials":{},"keys":[{"kid":"","algorithm":"rsa:2048","created":1,"retired":2}]}"#),
            ("unknown algorithm", #"{"version":1,"active":{},"serials":{},"keys":[{"kid":"x1","algorithm":"rsa:1024","created":1,"retired":2}]}"#),
            ("unknown active algorithm", #"{"version":1,"active":{"dsa":"r1"},"serials":{},"keys":[]}"#),
            ("duplicate kid", #"{"version":1,"active":{"rsa:2048":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1},{"kid":"r1","algorithm":"rsa:2048","created":1,"retired":2}]}"#),
            ("active with retired time", #"{"version":1,"active":{"rsa:2048":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1,"retired":2}]}"#),
            ("neither active nor retired", #"{"version":1,"active":{"rsa:2048":"r2"},"serials":{"rsa:2048":2},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1},{"kid":"r2","algorithm":"rsa:2048","created":1}]}"#),
            ("active not listed", #"{"version":1,"active":{"rsa:2048":"r9"},"serials":{"rsa:2048":9},"keys":[]}"#),
            ("no active key", #"{"version":1,"active":{},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1,"retired":2}]}"#),
            ("active under wrong algorithm", #"{"version":1,"active":{"ec:secp256r1":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1}]}"#),
            ("negative time", #"{"version":1,"active":{"rsa:2048":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":-1}]}"#),
            ("fractional time", #"{"version":1,"active":{"rsa:2048":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1.5}]}"#),
            ("string time", #"{"version":1,"active":{"rsa:2048":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":"2026-01-01"}]}"#),
            ("serial below kid", #"{"version":1,"active":{"rsa:2048":"r3"},"serials":{"rsa:2048":1},"keys":[{"kid":"r3","algorithm":"rsa:2048","created":1}]}"#),
            ("negative serial", #"{"version":1,"active":{},"serials":{"rsa:2048":-1},"keys":[]}"#),
            ("dev issuer wrong algorithm", #"{"version":1,"active":{},"serials":{},"keys":[],"devIssuer":{"kid":"dev1","algorithm":"HS256","created":1}}"#),
            ("dev issuer kid clash", #"{"version":1,"active":{"rsa:2048":"r1"},"serials":{"rsa:2048":1},"keys":[{"kid":"r1","algorithm":"rsa:2048","created":1}],"devIssuer":{"kid":"r1","algorithm":"ES256","created":1}}"#),
            ("dev issuer unknown member", #"{"version":1,"active":{},"serials":{},"keys":[],"devIssuer":{"kid":"dev1","algorithm":"ES256","created":1,"secret":"x"}}"#),
            ("not an object", #"[]"#),
            ("trailing data", #"{"version":1,"active":{},"serials":{},"keys":[]} x"#),
        ])
        func malformedIndexesAreRefused(label: String, json: String) {
            let error = #expect(throws: KeyRingError.self, "\(label)") {
                try KeyRingIndex(bytes: Array(json.utf8), file: "/data/keys/index.json")
            }
            #expect(error?.code == .corruptIndex, "\(label)")
            #expect(error?.reason.contains("/data/keys/index.json") == true, "\(label)")
        }

        @Test func aCorruptIndexOnDiskStopsLoading() throws {
            let temp = try TemporaryDirectory()
            try KeyRing.generate(dataDirectory: temp.path)
            try Data(#"{"version":1,"active":{},"serials":{},"keys":[],"bogus":true}"#.utf8)
                .write(to: URL(fileURLWithPath: temp.path + "/keys/index.json"))
            let error = #expect(throws: KeyRingError.self) { try KeyRing.load(dataDirectory: temp.path) }
            #expect(error?.code == .corruptIndex)
            #expect(error?.reason.contains("bogus") == true)
            #expect(throws: KeyRingError(.corruptIndex, "")) { try KeyRing.generate(dataDirectory: temp.path) }
            #expect(throws: KeyRingError(.corruptIndex, "")) { try KeyRing.rotate(.rsa2048, dataDirectory: temp.path) }
        }
    }
}
