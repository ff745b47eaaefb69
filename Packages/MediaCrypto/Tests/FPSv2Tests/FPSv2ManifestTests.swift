import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Testing
@testable import MediaDRMFPSv2

struct FPSv2ManifestTests {
    static let keys = [FPSv2Manifest.ComponentKey(kind: .video, key: Vectors.videoKey, wrappedKey: PackageFixture.placeholderWrappedKey),
                       FPSv2Manifest.ComponentKey(kind: .audio, key: Vectors.audioKey, wrappedKey: PackageFixture.placeholderWrappedKey)]

    @Test func appendixA1KeyBindings() {
        let list = FPSv2Manifest.componentList(Self.keys)
        #expect(list.entries.map(\.keyBinding) == [Vectors.videoKeyBinding, Vectors.audioKeyBinding])
        #expect(TDFBinding.keyBinding(componentID: "video", key: Vectors.audioKey) == Vectors.swappedKeyBinding)
    }

    @Test func appendixA1PolicyInsertionAndBindings() throws {
        let after = try FPSv2Manifest.policyJSON(inserting: Self.keys, into: Data(Vectors.policyBefore.utf8))
        #expect(String(decoding: after, as: UTF8.self) == Vectors.policyAfter)
        let manifest = try FPSv2Manifest.make(policy: Data(Vectors.policyBefore.utf8), components: Self.keys, iv: Vectors.iv,
                                              keyServiceURL: KeyServiceURL.platform)
        #expect(manifest.policy == Base64.encode(Data(Vectors.policyAfter.utf8)))
        #expect(manifest.keyAccess.map(\.policyBinding) == [.object(alg: "HS256", hash: Vectors.videoPolicyBinding),
                                                            .object(alg: "HS256", hash: Vectors.audioPolicyBinding)])
        #expect(manifest.method.iv == Vectors.methodIV)
        #expect(manifest.keyAccess.allSatisfy { $0.type == "wrapped" && $0.url == KeyServiceURL.platform })
    }

    @Test func appendixA2VideoOnly() throws {
        let manifest = try FPSv2Manifest.make(policy: Data(Vectors.policyBefore.utf8), components: [Self.keys[0]], iv: Vectors.iv,
                                              keyServiceURL: KeyServiceURL.platform)
        #expect(try Base64.decode(manifest.policy) == Data(Vectors.videoOnlyPolicyAfter.utf8))
        #expect(manifest.keyAccess.map(\.policyBinding.hash) == [Vectors.videoOnlyPolicyBinding])
    }

    @Test func canonicalWriteAndRoundTrip() throws {
        let manifest = try FPSv2Manifest.make(policy: Data(Vectors.policyBefore.utf8), components: Self.keys, iv: Vectors.iv,
                                              keyServiceURL: KeyServiceURL.platform, kid: "r1")
        let bytes = manifest.jsonData()
        let text = String(decoding: bytes, as: UTF8.self)
        // Sorted keys, compact, '/' never escaped (base64 holds '/').
        #expect(text.hasPrefix(#"{"encryptionInformation":{"keyAccess":[{"kid":"r1","policyBinding":{"alg":"HS256","hash":""#))
        #expect(!text.contains("\\/"))
        #expect(!text.contains(" "))
        #expect(text.contains(#""method":{"algorithm":"AES-128-CBC","isStreamable":true,"iv":"8PHy8/T19vf4+fr7/P3+/w=="}"#))
        let parsed = try FPSv2Manifest(parsing: bytes)
        #expect(parsed == manifest)
        #expect(parsed.jsonData() == bytes)
        #expect(parsed.keyAccess[0].keyAccessObject.policyBinding.hash == Vectors.videoPolicyBinding)
    }

    @Test func wrapsToTheKeyServiceKey() throws {
        let kas = try RSA.PrivateKey(keySize: 2048)
        let video = try FPSv2Manifest.ComponentKey(kind: .video, key: Vectors.videoKey, wrappingTo: kas.publicKey)
        let manifest = try FPSv2Manifest.make(policy: Data(Vectors.policyBefore.utf8), components: [video], iv: Vectors.iv,
                                              keyServiceURL: KeyServiceURL.platform)
        let unwrapped = try kas.decrypt(Base64.decode(manifest.keyAccess[0].wrappedKey), padding: .oaepSHA1)
        #expect(SecretKey(data: unwrapped) == Vectors.videoKey)
        #expect(TDFBinding.isValidPolicyBinding(manifest.keyAccess[0].policyBinding.hash, policyBase64: manifest.policy, key: Vectors.videoKey))
    }

    @Test func writerRefusals() {
        let before = Data(Vectors.policyBefore.utf8)
        let refusals: [(String, () throws -> Void)] = [
            ("audio first", { _ = try FPSv2Manifest.make(policy: before, components: Self.keys.reversed(), iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform) }),
            ("shared key", {
                let shared = [Self.keys[0], FPSv2Manifest.ComponentKey(kind: .audio, key: Vectors.videoKey, wrappedKey: Data([1]))]
                _ = try FPSv2Manifest.make(policy: before, components: shared, iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform)
            }),
            ("32-byte key", {
                let long = [FPSv2Manifest.ComponentKey(kind: .video, key: SecretKey(data: Data(count: 32)), wrappedKey: Data([1]))]
                _ = try FPSv2Manifest.make(policy: before, components: long, iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform)
            }),
            ("8-byte IV", { _ = try FPSv2Manifest.make(policy: before, components: Self.keys, iv: Data(count: 8), keyServiceURL: KeyServiceURL.platform) }),
            ("http KAS", { _ = try FPSv2Manifest.make(policy: before, components: Self.keys, iv: Vectors.iv, keyServiceURL: "http://kas.example.com") }),
            ("components present", {
                _ = try FPSv2Manifest.make(policy: Data(Vectors.policyAfter.utf8), components: Self.keys, iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform)
            }),
            ("placeholder policy", {
                _ = try FPSv2Manifest.make(policy: Data(#"{"uuid":"3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b","body":{}}"#.utf8), components: Self.keys,
                                           iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform)
            }),
            ("uppercase uuid", {
                let upper = Vectors.policyBefore.replacingOccurrences(of: Vectors.uuid, with: Vectors.uuid.uppercased())
                _ = try FPSv2Manifest.make(policy: Data(upper.utf8), components: Self.keys, iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform)
            }),
        ]
        for (name, body) in refusals {
            #expect(throws: FPSv2Error.self, "\(name)") { try body() }
        }
    }

    /// A cmaf package keyed per resolution class: several video components, each bound under its
    /// own id; version 2's layout refuses them, so the fps-v2 profile is unchanged.
    @Test func videoClassLayout() throws {
        let hdKey = SecretKey(data: Data(repeating: 0x5a, count: 16))
        let classes = [FPSv2Manifest.ComponentKey(id: "video-sd", kind: .video, key: Vectors.videoKey, wrappedKey: Data([1])),
                       FPSv2Manifest.ComponentKey(id: "video-hd", kind: .video, key: hdKey, wrappedKey: Data([2])),
                       FPSv2Manifest.ComponentKey(kind: .audio, key: Vectors.audioKey, wrappedKey: Data([3]))]
        let before = Data(Vectors.policyBefore.utf8)
        let manifest = try FPSv2Manifest.make(policy: before, components: classes, iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform,
                                              layout: .videoClasses)
        #expect(manifest.keyAccess.count == 3)
        let policy = try #require(try JSONParser.parse(Array(try Base64.decode(manifest.policy))).object)
        let list = try MediaComponentList(json: try #require(policy[MediaComponentList.policyKey]))
        #expect(list.entries.map(\.id) == ["video-sd", "video-hd", "audio"] && list.entries.map(\.kind) == ["video", "video", "audio"])
        #expect(list.entries[1].keyBinding == TDFBinding.keyBinding(componentID: "video-hd", key: hdKey))
        #expect(throws: MediaComponentListError.self) { _ = try MediaComponentList(version2: list.jsonValue) }
        #expect(try MediaComponentList(servedKeys: list.jsonValue) == list)

        let refusals: [(String, [FPSv2Manifest.ComponentKey], FPSv2Manifest.ComponentLayout)] = [
            ("classes under version 2", classes, .version2),
            ("audio first", Array(classes.reversed()), .videoClasses),
            ("two components with one id", [classes[0], FPSv2Manifest.ComponentKey(id: "video-sd", kind: .video, key: hdKey, wrappedKey: Data([2]))],
             .videoClasses),
            ("a shared key", [classes[0], FPSv2Manifest.ComponentKey(id: "video-hd", kind: .video, key: Vectors.videoKey, wrappedKey: Data([2]))],
             .videoClasses),
        ]
        for (name, keys, layout) in refusals {
            #expect(throws: FPSv2Error.self, "\(name)") {
                _ = try FPSv2Manifest.make(policy: before, components: keys, iv: Vectors.iv, keyServiceURL: KeyServiceURL.platform, layout: layout)
            }
        }
    }

    /// What a KAS serves keys for: version 2 lists, and video classes in order, then audio.
    @Test func servedKeysListReader() throws {
        func list(_ entries: [(String, String)]) -> JSONValue {
            .array(entries.map { id, kind in
                .object(JSONObject([("id", .string(id)), ("kind", .string(kind)), ("keyBinding", .string(Vectors.videoKeyBinding))]))
            })
        }
        let accepted: [[(String, String)]] = [
            [("video", "video")], [("video", "video"), ("audio", "audio")], [("video-hd", "video")],
            [("video-sd", "video"), ("video-uhd2", "video"), ("audio", "audio")],
            [("video-sd", "video"), ("video-hd", "video"), ("video-uhd1", "video"), ("video-uhd2", "video")],
        ]
        for entries in accepted { #expect(throws: Never.self, "\(entries)") { _ = try MediaComponentList(servedKeys: list(entries)) } }
        let refused: [[(String, String)]] = [
            [], [("video-hd", "video"), ("video-sd", "video")], [("video-sd", "video"), ("video-sd", "video")],
            [("video-4k", "video")], [("video", "video"), ("video-sd", "video")], [("audio", "audio"), ("video-sd", "video")],
            [("video-sd", "video"), ("audio", "audio"), ("audio", "audio")], [("video-sd", "audio")], [("video-sd", "video"), ("sound", "audio")],
        ]
        for entries in refused { #expect(throws: MediaComponentListError.self, "\(entries)") { _ = try MediaComponentList(servedKeys: list(entries)) } }
        #expect(throws: MediaComponentListError.self) { _ = try MediaComponentList(servedKeys: nil) }
    }

    static var valid: Data {
        (try? FPSv2Manifest.make(policy: Data(Vectors.policyBefore.utf8), components: keys, iv: Vectors.iv,
                                 keyServiceURL: KeyServiceURL.platform, kid: "k1").jsonData()) ?? Data()
    }

    @Test func everyPrefixIsRefused() throws {
        let bytes = Self.valid
        #expect(bytes.count > 500)
        for length in 0..<bytes.count {
            #expect(throws: FPSv2Error.self) { try FPSv2Manifest(parsing: bytes.prefix(length)) }
        }
        #expect(try FPSv2Manifest(parsing: bytes).keyAccess.count == 2)
    }

    @Test func duplicateKeysAreRefused() throws {
        let text = String(decoding: Self.valid, as: UTF8.self)
        let cases = [
            text.replacingOccurrences(of: #"{"encryptionInformation":"#, with: #"{"schemaVersion":"a","schemaVersion":"b","encryptionInformation":"#),
            text.replacingOccurrences(of: #""kid":"k1","#, with: #""kid":"k1","kid":"k2","#),
            // The same key after unescaping.
            text.replacingOccurrences(of: #""method":{"#, with: #""method":{"\u0069v":"AAAAAAAAAAAAAAAAAAAAAA==","#),
        ]
        for variant in cases {
            #expect(variant != text)
            let error = try #require(throws: FPSv2Error.self) { try FPSv2Manifest(parsing: Data(variant.utf8)) }
            #expect(error.check == .manifestJSON)
        }
    }

    @Test(arguments: [
        ("unknown root member", #"{"encryptionInformation":"#, #"{"extra":1,"encryptionInformation":"#),
        ("unknown keyAccess member", #""kid":"k1","#, #""kid":"k1","sid":"1","#),
        ("unknown method member", #""method":{"#, #""method":{"mode":"x","#),
        ("binding extra member", #""policyBinding":{"alg":"HS256","#, #""policyBinding":{"alg":"HS256","x":1,"#),
        ("iv not a string", #""iv":"8PHy8/T19vf4+fr7/P3+/w==""#, #""iv":16"#),
        ("missing iv", #","iv":"8PHy8/T19vf4+fr7/P3+/w==""#, ""),
        ("null kid", #""kid":"k1""#, #""kid":null"#),
        ("keyAccess not an array", #""keyAccess":["#, #""keyAccess":{"a":["#),
        ("payload member", #"{"encryptionInformation":"#, #"{"payload":{"isEncrypted":"yes"},"encryptionInformation":"#),
    ])
    func closedSchema(name: String, old: String, new: String) throws {
        let text = String(decoding: Self.valid, as: UTF8.self)
        #expect(text.contains(old), "\(name)")
        let variant = text.replacingOccurrences(of: old, with: new)
        let error = try #require(throws: FPSv2Error.self) { try FPSv2Manifest(parsing: Data(variant.utf8)) }
        #expect(error.code == .malformedManifest)
        // "keyAccess not an array" leaves the JSON itself unbalanced only if the edit breaks it.
        #expect(error.check == .manifestSchema || error.check == .manifestJSON, "\(name)")
    }

    @Test func informationalMembersAreAccepted() throws {
        let text = String(decoding: Self.valid, as: UTF8.self)
            .replacingOccurrences(of: #"{"encryptionInformation":"#,
                                  with: #"{"meta":{"assetId":"rec-1"},"payload":{"type":"reference","isEncrypted":true},"schemaVersion":"4.3.0","encryptionInformation":"#)
            .replacingOccurrences(of: #""kid":"k1","#, with: #""kid":"k1","encryptedMetadata":"e30=","#)
        let parsed = try FPSv2Manifest(parsing: Data(text.utf8))
        #expect(parsed.meta == .object(JSONObject([("assetId", .string("rec-1"))])))
        #expect(parsed.keyAccess[0].encryptedMetadata == "e30=")
        #expect(try FPSv2Manifest(parsing: parsed.jsonData()) == parsed)
    }

    @Test func oversizedManifestIsRefusedBeforeParsing() {
        let big = Data(repeating: 0x20, count: 1_048_577)
        let error = #expect(throws: FPSv2Error.self) { try FPSv2Manifest(parsing: big) }
        #expect(error?.code == .limitExceeded)
    }
}
