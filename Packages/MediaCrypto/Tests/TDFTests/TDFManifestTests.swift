import Foundation
import MediaDRMJSON
import Testing
@testable import MediaDRMTDF

@Suite("TDF manifest model")
struct TDFManifestTests {
    /// A manifest as the OpenTDF Go SDK writes it (abridged values, real shape).
    static let goManifest = """
    {"encryptionInformation":{"type":"split","policy":"eyJ1dWlkIjoiYSIsImJvZHkiOnsiZGF0YUF0dHJpYnV0ZXMiOm51bGwsImRpc3NlbSI6bnVsbH19",\
    "keyAccess":[{"type":"wrapped","url":"http://localhost:8080","protocol":"kas","wrappedKey":"AAAA",\
    "policyBinding":{"alg":"HS256","hash":"BBBB"},"kid":"r1","schemaVersion":"1.0"}],\
    "method":{"algorithm":"AES-256-GCM","iv":"","isStreamable":true},\
    "integrityInformation":{"rootSignature":{"alg":"HS256","sig":"CCCC"},"segmentHashAlg":"GMAC",\
    "segmentSizeDefault":2097152,"encryptedSegmentSizeDefault":2097180,\
    "segments":[{"hash":"DDDD","segmentSize":5,"encryptedSegmentSize":33}]}},\
    "payload":{"type":"reference","url":"0.payload","protocol":"zip","mimeType":"text/plain","isEncrypted":true},\
    "schemaVersion":"4.3.0"}
    """

    @Test("parses a Go SDK manifest")
    func parsesGoManifest() throws {
        let manifest = try TDFManifest(parsing: Data(Self.goManifest.utf8))
        #expect(manifest.schemaVersion == "4.3.0")
        let info = manifest.encryptionInformation
        #expect(info.keyAccess.count == 1)
        #expect(info.keyAccess[0].type == .wrapped)
        #expect(info.keyAccess[0].kid == "r1")
        #expect(info.keyAccess[0].sid == nil)
        #expect(info.keyAccess[0].schemaVersion == "1.0")
        #expect(info.keyAccess[0].policyBinding == .object(alg: "HS256", hash: "BBBB"))
        #expect(info.method == .init(algorithm: "AES-256-GCM", isStreamable: true, iv: ""))
        #expect(info.integrityInformation.segments == [.init(hash: "DDDD", segmentSize: 5, encryptedSegmentSize: 33)])
        #expect(info.integrityInformation.encryptedSegmentSizeDefault == 2_097_180)
        #expect(manifest.payload.mimeType == "text/plain")
        // Policy with null arrays, as Go's json.Marshal writes empty slices.
        let policy = try TDFPolicy(base64: info.policy)
        #expect(policy.uuid == "a")
        #expect(policy.body.dataAttributes.isEmpty && policy.body.dissem.isEmpty)
    }

    @Test("write then parse gives the same model")
    func roundTrip() throws {
        let manifest = try TDFManifest(parsing: Data(Self.goManifest.utf8))
        #expect(try TDFManifest(parsing: manifest.jsonData()) == manifest)
    }

    @Test("every prefix of a manifest fails with a typed error")
    func truncation() throws {
        let bytes = Array(Self.goManifest.utf8)
        for length in 0..<bytes.count {
            #expect(throws: TDFError(.malformedManifest, "")) { try TDFManifest(parsing: bytes[0..<length]) }
        }
    }

    @Test("every prefix of a written manifest fails with a typed error")
    func truncationOfWritten() throws {
        let archive = try TDF.encrypt(pattern(3000), options: options(.ec(TestKeys.ec.publicKey)))
        let bytes = Array(try TDFParts(archive: archive).manifest)
        for length in 0..<bytes.count {
            #expect(throws: TDFError(.malformedManifest, "")) { try TDFManifest(parsing: bytes[0..<length]) }
        }
    }

    @Test("unknown members are tolerated, sizes default, schemaVersion may be tdf_spec_version")
    func tolerant() throws {
        let text = Self.goManifest
            .replacingOccurrences(of: "\"schemaVersion\":\"4.3.0\"", with: "\"tdf_spec_version\":\"4.3.0\",\"extra\":{\"x\":[1,2]}")
            .replacingOccurrences(of: "{\"hash\":\"DDDD\",\"segmentSize\":5,\"encryptedSegmentSize\":33}", with: "{\"hash\":\"DDDD\",\"note\":null}")
        let manifest = try TDFManifest(parsing: Data(text.utf8))
        #expect(manifest.schemaVersion == "4.3.0")
        #expect(manifest.encryptionInformation.integrityInformation.segments == [.init(hash: "DDDD", segmentSize: 2_097_152, encryptedSegmentSize: 2_097_180)])
    }

    @Test("policy binding as a bare string (older TDFs)")
    func stringBinding() throws {
        let text = Self.goManifest.replacingOccurrences(of: "{\"alg\":\"HS256\",\"hash\":\"BBBB\"}", with: "\"BBBB\"")
        let manifest = try TDFManifest(parsing: Data(text.utf8))
        #expect(manifest.encryptionInformation.keyAccess[0].policyBinding == .string("BBBB"))
        #expect(try TDFManifest(parsing: manifest.jsonData()) == manifest)
    }

    @Test("ec-wrapped key access keeps its ephemeral key; one without it is refused")
    func ecWrapped() throws {
        let withKey = Self.goManifest.replacingOccurrences(of: "\"type\":\"wrapped\"", with: "\"type\":\"ec-wrapped\",\"ephemeralPublicKey\":\"PEM\"")
        let manifest = try TDFManifest(parsing: Data(withKey.utf8))
        #expect(manifest.encryptionInformation.keyAccess[0].type == .ecWrapped)
        #expect(manifest.encryptionInformation.keyAccess[0].ephemeralPublicKey == "PEM")
        let without = Self.goManifest.replacingOccurrences(of: "\"type\":\"wrapped\"", with: "\"type\":\"ec-wrapped\"")
        #expect(throws: TDFError(.malformedManifest, "")) { try TDFManifest(parsing: Data(without.utf8)) }
    }

    static let malformed: [(String, String)] = [
        ("\"type\":\"split\",", ""),                                              // missing type
        ("\"policy\":\"eyJ1dWlkIjoiYSIsImJvZHkiOnsiZGF0YUF0dHJpYnV0ZXMiOm51bGwsImRpc3NlbSI6bnVsbH19\",", ""), // missing policy
        ("\"isStreamable\":true", "\"isStreamable\":\"true\""),                  // wrong type
        ("\"segmentSizeDefault\":2097152", "\"segmentSizeDefault\":-1"),          // negative
        ("\"segmentSizeDefault\":2097152", "\"segmentSizeDefault\":2.5"),         // not an integer
        ("\"segmentSize\":5", "\"segmentSize\":\"5\""),                           // wrong type
        ("\"keyAccess\":[{", "\"keyAccess\":[],\"x\":[{"),                          // empty keyAccess
        ("\"wrappedKey\":\"AAAA\",", ""),                                         // missing wrappedKey
        ("\"policyBinding\":{\"alg\":\"HS256\",\"hash\":\"BBBB\"}", "\"policyBinding\":7"),
        ("\"policyBinding\":{\"alg\":\"HS256\",\"hash\":\"BBBB\"}", "\"policyBinding\":{\"alg\":\"HS256\"}"),
        ("\"isEncrypted\":true", "\"isEncrypted\":1"),
        ("\"payload\":{", "\"payload\":[{"),                                      // invalid JSON
        ("\"schemaVersion\":\"4.3.0\"", "\"schemaVersion\":\"4.3.0\",\"schemaVersion\":\"4.3.0\""), // duplicate key
        ("\"kid\":\"r1\"", "\"kid\":\"r1\",\"kid\":\"r2\""),                      // duplicate key, nested
        ("\"segments\":[", "\"segments\":{\"a\":["),                              // wrong type (and bad JSON)
        ("\"rootSignature\":{\"alg\":\"HS256\",\"sig\":\"CCCC\"}", "\"rootSignature\":\"CCCC\""),
    ]

    @Test("malformed manifests are refused", arguments: malformed)
    func malformedManifest(edit: (String, String)) throws {
        #expect(Self.goManifest.contains(edit.0))
        let text = Self.goManifest.replacingOccurrences(of: edit.0, with: edit.1)
        #expect(throws: TDFError(.malformedManifest, "")) { try TDFManifest(parsing: Data(text.utf8)) }
    }

    @Test("counts and sizes above the limits are refused")
    func limits() throws {
        var limits = TDFLimits()
        limits.maxManifestBytes = 100
        #expect(throws: TDFError(.limitExceeded, "")) { try TDFManifest(parsing: Data(Self.goManifest.utf8), limits: limits) }
        limits = TDFLimits()
        limits.maxSegments = 0
        #expect(throws: TDFError(.limitExceeded, "")) { try TDFManifest(parsing: Data(Self.goManifest.utf8), limits: limits) }
        limits = TDFLimits()
        limits.maxKeyAccessObjects = 0
        #expect(throws: TDFError(.limitExceeded, "")) { try TDFManifest(parsing: Data(Self.goManifest.utf8), limits: limits) }
    }

    /// Layout problems found when an archive is opened: the manifest is well-formed JSON but
    /// disagrees with itself or with the payload.
    @Test("inconsistent segment tables are refused when opening")
    func segmentTables() throws {
        let archive = try TDF.encrypt(pattern(3000), options: options(.rsa(TestKeys.rsa.publicKey)))
        var parts = try TDFParts(archive: archive)
        // One segment fewer than the payload holds.
        var missing = parts
        try missing.editManifest { $0.encryptionInformation.integrityInformation.segments.removeLast() }
        #expect(throws: TDFError(.integrityFailure, "")) { try TDFArchiveReader(data: missing.archive()) }
        // An encrypted size that is not the plaintext size + 28.
        try parts.editManifest { $0.encryptionInformation.integrityInformation.segments[0].encryptedSegmentSize += 1 }
        #expect(throws: TDFError(.malformedManifest, "")) { try TDFArchiveReader(data: parts.archive()) }
    }

    @Test("unsupported algorithms are refused when opening", arguments: ["algorithm", "segmentHashAlg", "rootAlg", "type", "payload"])
    func unsupported(field: String) throws {
        var parts = try TDFParts(archive: TDF.encrypt(pattern(10), options: options(.rsa(TestKeys.rsa.publicKey))))
        try parts.editManifest { manifest in
            switch field {
            case "algorithm": manifest.encryptionInformation.method.algorithm = "AES-128-CBC"
            case "segmentHashAlg": manifest.encryptionInformation.integrityInformation.segmentHashAlg = "MD5"
            case "rootAlg": manifest.encryptionInformation.integrityInformation.rootSignature.alg = "RS256"
            case "type": manifest.encryptionInformation.type = "remote"
            default: manifest.payload.isEncrypted = false
            }
        }
        #expect(throws: TDFError(.unsupported, "")) { try TDFArchiveReader(data: parts.archive()) }
    }
}
