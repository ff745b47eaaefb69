// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMTDF
import Testing
import MediaDRMZIP
@testable import MediaDRMFPSv2
import MediaDRMMedia

/// One change to the valid Appendix A package and the check that must be the first to fail.
struct Mutation: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: AdmissionCheck
    var audio = true
    var options = FPSv2Admission.Options.default
    var edit: @Sendable (inout PackageFixture) throws -> Void = { _ in }
    var archive: @Sendable (PackageFixture) throws -> Data = { try $0.zip() }

    var testDescription: String { "\(name) → \(expected.section)" }

    static func fixture(_ name: String, _ expected: AdmissionCheck, audio: Bool = true,
                        _ edit: @escaping @Sendable (inout PackageFixture) throws -> Void) -> Mutation {
        Mutation(name: name, expected: expected, audio: audio, edit: edit)
    }

    static func bytes(_ name: String, _ expected: AdmissionCheck, _ transform: @escaping @Sendable (Data) throws -> Data) -> Mutation {
        Mutation(name: name, expected: expected, archive: { try transform($0.zip()) })
    }

    static func limits(_ name: String, _ expected: AdmissionCheck, _ limits: FPSv2Limits) -> Mutation {
        Mutation(name: name, expected: expected, options: FPSv2Admission.Options(limits: limits))
    }

    static func initSpec(_ name: String, _ expected: AdmissionCheck, _ kind: MediaComponentKind,
                         _ change: @escaping @Sendable (inout InitSpec) -> Void) -> Mutation {
        fixture(name, expected) { f in
            var spec = InitSpec(kind)
            change(&spec)
            f["\(kind.id)-init.mp4"] = try spec.bytes()
        }
    }

    func apply() throws -> (package: FPSv2Package, options: FPSv2Admission.Options) {
        var fixture = try PackageFixture.valid(audio: audio)
        try edit(&fixture)
        return (FPSv2Package(archiveData: try archive(fixture)), options)
    }
}

/// Flips one byte of an archive.
func flipping(_ data: Data, at offset: Int) -> Data {
    var bytes = [UInt8](data)
    bytes[offset] ^= 0xFF
    return Data(bytes)
}

extension Mutation {
    static let all: [Mutation] = [
        // §12 and §4.1–§4.3: the container.
        .limits("archive over maxInputBytes", .archiveSize, FPSv2Limits(maxInputBytes: 100)),
        .bytes("last byte missing", .endRecord) { $0.dropLast() },
        .bytes("end record two entry counts differ", .endRecord) { data in
            var bytes = [UInt8](data)
            bytes[bytes.count - 22 + 8] &+= 1
            return Data(bytes)
        },
        Mutation(name: "ZIP64 end records", expected: .zip32, archive: { try $0.zip(forceZIP64: true) }),
        .limits("more entries than maxEntries", .entryCount, FPSv2Limits(maxEntries: 5)),
        .limits("entries over maxExpandedBytes", .expandedSize, FPSv2Limits(maxExpandedBytes: 1_000)),
        .bytes("traversal name", .safeNames) { $0.replacingASCII("video-segment2.m4s", with: "../eo-segment2.m4s") },
        .bytes("backslash name", .safeNames) { $0.replacingASCII("video-segment2.m4s", with: "video\\segment2.m4s") },
        .bytes("duplicate name", .uniqueNames) { $0.replacingASCII("audio-segment2.m4s", with: "audio-segment1.m4s") },
        Mutation(name: "a deflated entry", expected: .storedEntries, archive: { try $0.zip(deflating: ["video-segment0.m4s"]) }),
        .bytes("encryption flag in the central directory", .storedEntries) { data in
            var bytes = [UInt8](data)
            bytes[try #require(data.range(ofASCII: "PK\u{01}\u{02}")).lowerBound + 8] |= 0x01
            return Data(bytes)
        },
        .bytes("data descriptor flag in the central directory", .storedEntries) { data in
            var bytes = [UInt8](data)
            bytes[try #require(data.range(ofASCII: "PK\u{01}\u{02}")).lowerBound + 8] |= 0x08
            return Data(bytes)
        },
        .bytes("local header CRC differs", .headersAgree) { flipping($0, at: 14) },
        .bytes("archive comment", .exactLayout) { data in
            var bytes = [UInt8](data)
            bytes[bytes.count - 2] = 1
            return Data(bytes + [0x21])
        },
        // §4.4 names and §12 sizes.
        .fixture("an extra entry", .entryNames) { $0["notes.txt"] = Data("x".utf8) },
        .fixture("a profile version 1 init.mp4", .entryNames) { $0.rename("video-init.mp4", to: "init.mp4") },
        .fixture("no master.m3u8", .requiredEntries) { $0["master.m3u8"] = nil },
        .fixture("no manifest.json", .requiredEntries) { $0["manifest.json"] = nil },
        .limits("manifest over maxManifestBytes", .metadataSizes, FPSv2Limits(maxManifestBytes: 600)),
        .bytes("manifest.json CRC-32", .manifestEntryRead) { flipping($0, at: 60) },
        // §5 manifest.
        .fixture("duplicate manifest key", .manifestJSON) { f in
            try f.replaceText(in: "manifest.json", #"{"encryptionInformation":"#, with: #"{"meta":1,"meta":2,"encryptionInformation":"#)
        },
        .fixture("manifest truncated", .manifestJSON) { f in f["manifest.json"] = f["manifest.json"]?.dropLast() },
        .fixture("unknown manifest member", .manifestSchema) { try $0.editManifest { $0.setting("extra", .bool(true)) } },
        .fixture("no method.iv", .manifestSchema) { f in
            try f.editEncryptionInformation { info in
                info.setting("method", .object(try #require(info["method"]?.object).removing("iv")))
            }
        },
        // §6 policy, §9.6, §5.3.
        .fixture("policy base64 with a line break", .policyEncoding) { f in
            try f.editEncryptionInformation { info in
                let text = try #require(info["policy"]?.string)
                return info.setting("policy", .string(text.prefix(64) + "\n" + text.dropFirst(64)))
            }
        },
        .fixture("policy base64 of a JSON array", .policyEncoding) { f in
            try f.editEncryptionInformation { $0.setting("policy", .string(Base64.encode(Data("[]".utf8)))) }
        },
        .fixture("duplicate policy key", .policyEncoding) { f in
            try f.editEncryptionInformation { info in
                let policy = String(decoding: try Base64.decode(try #require(info["policy"]?.string)), as: UTF8.self)
                let doubled = policy.replacingOccurrences(of: #""body":"#, with: #""uuid":"x","body":"#)
                return info.setting("policy", .string(Base64.encode(Data(doubled.utf8))))
            }
        },
        .fixture("uppercase uuid", .policyUUID) { try $0.editPolicy { $0.setting("uuid", .string(Vectors.uuid.uppercased())) } },
        .fixture("empty dataAttributes", .policyDataAttributes) { f in
            try f.editPolicy { policy in
                policy.setting("body", .object(JSONObject([("dataAttributes", .array([])), ("dissem", .array([]))])))
            }
        },
        .fixture("empty attribute", .policyDataAttributes) { f in
            try f.editPolicy { policy in
                policy.setting("body", .object(JSONObject([("dataAttributes", .array([.object(JSONObject([("attribute", .string(""))]))]))])))
            }
        },
        .fixture("no arkavo:components", .profileVersion) { try $0.editPolicy { $0.removing(TDFPolicy.componentsKey) } },
        .fixture("audio listed first", .componentList) { f in
            try f.editPolicy { policy in
                let list = try #require(policy[TDFPolicy.componentsKey]?.array)
                return policy.setting(TDFPolicy.componentsKey, .array(list.reversed()))
            }
        },
        .fixture("extra component member", .componentList) { f in
            try f.editPolicy { policy in
                var list = try #require(policy[TDFPolicy.componentsKey]?.array)
                list[1] = .object(try #require(list[1].object).setting("lang", .string("en")))
                return policy.setting(TDFPolicy.componentsKey, .array(list))
            }
        },
        .fixture("keyBinding of 31 bytes", .keyBindingForm) { f in
            try f.editPolicy { policy in
                var list = try #require(policy[TDFPolicy.componentsKey]?.array)
                list[0] = .object(try #require(list[0].object).setting("keyBinding", .string(Base64.encode(Data(count: 31)))))
                return policy.setting(TDFPolicy.componentsKey, .array(list))
            }
        },
        .fixture("no classification", .classification) { try $0.editPolicy { $0.removing(TDFPolicy.classificationKey) } },
        .fixture("classification v written 1.0", .classification) { f in
            try f.editPolicy { policy in
                let classification = try #require(policy[TDFPolicy.classificationKey]?.object)
                return policy.setting(TDFPolicy.classificationKey, .object(classification.setting("v", .number(try #require(JSONNumber(text: "1.0"))))))
            }
        },
        .fixture("classification flagged twice", .classification) { f in
            try f.editPolicy { policy in
                let classification = try #require(policy[TDFPolicy.classificationKey]?.object)
                return policy.setting(TDFPolicy.classificationKey,
                                      .object(classification.setting("flagged", .array([.string("nudity"), .string("nudity")]))))
            }
        },
        // §5.2 key access, §5.4 IV.
        .fixture("one keyAccess for two components", .keyAccessCount) { f in
            try f.editEncryptionInformation { info in
                info.setting("keyAccess", .array(Array(try #require(info["keyAccess"]?.array).prefix(1))))
            }
        },
        .fixture("ec-wrapped key access", .keyAccessShape) { try $0.editKeyAccess(1) { $0.setting("type", .string("ec-wrapped")) } },
        .fixture("wrappedKey not base64", .keyAccessShape) { try $0.editKeyAccess(0) { $0.setting("wrappedKey", .string("not base64!")) } },
        .fixture("another key service", .keyAccessURL) { f in
            try f.editKeyAccess(0) { $0.setting("url", .string("https://kas.example.com")) }
            try f.editKeyAccess(1) { $0.setting("url", .string("https://kas.example.com")) }
        },
        .fixture("key service with a path", .keyAccessURL) { f in
            try f.editKeyAccess(0) { $0.setting("url", .string("https://platform.arkavo.net/kas")) }
            try f.editKeyAccess(1) { $0.setting("url", .string("https://platform.arkavo.net/kas")) }
        },
        .fixture("two url texts", .keyAccessSameURL) { try $0.editKeyAccess(1) { $0.setting("url", .string("https://platform.arkavo.net/")) } },
        .fixture("base64(hex) policy binding", .policyBindingForm) { f in
            let hexForm = Base64.encode(Data(Hex.encode(try Base64.decode(Vectors.audioPolicyBinding)).utf8))
            try f.editKeyAccess(1) { $0.setting("policyBinding", .object(JSONObject([("alg", .string("HS256")), ("hash", .string(hexForm))]))) }
        },
        .fixture("HS512 policy binding", .policyBindingForm) { f in
            try f.editKeyAccess(0) { $0.setting("policyBinding", .object(JSONObject([("alg", .string("HS512")), ("hash", .string(Vectors.videoPolicyBinding))]))) }
        },
        .fixture("8-byte method.iv", .methodIV) { f in
            try f.editEncryptionInformation { info in
                info.setting("method", .object(try #require(info["method"]?.object).setting("iv", .string(Base64.encode(Data(count: 8))))))
            }
        },
        .fixture("empty method.iv", .methodIV) { f in
            try f.editEncryptionInformation { info in
                info.setting("method", .object(try #require(info["method"]?.object).setting("iv", .string(""))))
            }
        },
        // §4.4 entries against the list.
        .fixture("no audio-init.mp4", .componentEntries) { $0["audio-init.mp4"] = nil },
        .fixture("entry of an unlisted component", .componentEntries) { $0["image.m3u8"] = Data(Vectors.mediaPlaylist("video").utf8) },
        .fixture("a gap in the segments", .segmentNumbering) { f in
            f["video-segment1.m4s"] = nil
            f["audio-segment1.m4s"] = nil
        },
        .fixture("different segment counts", .segmentNumbering) { $0["audio-segment2.m4s"] = nil },
        .bytes("video-init.mp4 CRC-32", .componentEntryRead) { data in
            flipping(data, at: try #require(data.range(ofASCII: "iso6")).lowerBound)
        },
        // §7 playlists.
        .fixture("CRLF master", .masterGrammar) { try $0.replaceText(in: "master.m3u8", "\n", with: "\r\n") },
        .fixture("session key in master", .masterGrammar) { f in
            try f.replaceText(in: "master.m3u8", "#EXT-X-INDEPENDENT-SEGMENTS", with: "#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-SESSION-KEY:METHOD=NONE")
        },
        .fixture("audio rendition without audio component", .masterComponents, audio: false) { f in
            f["master.m3u8"] = Data(Vectors.masterWithAudio.utf8)
        },
        .fixture("no ENDLIST", .mediaGrammar) { try $0.replaceText(in: "video.m3u8", "\n#EXT-X-ENDLIST", with: "") },
        .fixture("METHOD=NONE", .mediaGrammar) { try $0.replaceText(in: "audio.m3u8", "METHOD=SAMPLE-AES", with: "METHOD=NONE") },
        .fixture("another policy uuid in the key URI", .mediaKeyURI) { f in
            try f.replaceText(in: "audio.m3u8", Vectors.uuid, with: "00000000-0000-4000-8000-000000000000")
        },
        .fixture("key IV differs", .mediaIV) { f in
            try f.replaceText(in: "video.m3u8", "IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF", with: "IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFE00")
        },
        .fixture("playlists list more segments than the entries", .mediaSegments) { f in
            f["video-segment2.m4s"] = nil
            f["audio-segment2.m4s"] = nil
        },
        .fixture("different EXTINF", .segmentAlignment) { try $0.replaceText(in: "audio.m3u8", "#EXTINF:4.50000,", with: "#EXTINF:4.40000,") },
        .fixture("different TARGETDURATION", .segmentAlignment) { try $0.replaceText(in: "audio.m3u8", "TARGETDURATION:6", with: "TARGETDURATION:7") },
        // §8 inits.
        .fixture("truncated init", .initBoxTree) { f in f["video-init.mp4"] = f["video-init.mp4"]?.dropLast() },
        .initSpec("two moov boxes", .initBoxTree, .audio) { $0.moovCount = 2 },
        .initSpec("two tracks", .initTrack, .video) { $0.trackCount = 2 },
        .initSpec("sound handler in the video init", .initTrack, .video) { $0.handler = "soun" },
        .initSpec("clear avc1 entry", .initSampleEntry, .video) { $0.sampleFormat = "avc1" },
        .initSpec("clear mp4a entry", .initSampleEntry, .audio) { $0.sampleFormat = "mp4a" },
        .initSpec("frma avc3", .initOriginalFormat, .video) { $0.originalFormat = "avc3" },
        .initSpec("scheme cenc", .initScheme, .audio) { $0.scheme = "cenc" },
        .initSpec("scheme version 2", .initScheme, .video) { $0.schemeVersion = 0x0002_0000 },
        .initSpec("constant IV differs", .initTrackEncryption, .audio) { $0.constantIV = Array(repeating: 7, count: 16) },
        .initSpec("per-sample IVs", .initTrackEncryption, .video) { spec in
            spec.perSampleIVSize = 16
            spec.constantIV = nil
        },
        .initSpec("8-byte constant IV", .initTrackEncryption, .video) { $0.constantIV = Array(Vectors.iv.prefix(8)) },
        .initSpec("video pattern 1:0", .initPattern, .video) { $0.skip = 0 },
        .initSpec("video tenc version 0", .initPattern, .video) { spec in
            spec.crypt = 0
            spec.skip = 0
            spec.tencVersion = 0
        },
        .initSpec("audio tenc version 1", .initPattern, .audio) { spec in
            spec.crypt = 1
            spec.skip = 9
            spec.tencVersion = 1
        },
        .fixture("audio tenc pattern byte set", .initPattern) { f in
            var bytes = [UInt8](try #require(f["audio-init.mp4"]))
            let tenc = try #require(Data(bytes).range(ofASCII: "tenc"))
            bytes[tenc.lowerBound + 9] = 0x19
            f["audio-init.mp4"] = Data(bytes)
        },
        .initSpec("video without avcC", .initCodec, .video) { $0.withAVCC = false },
        .initSpec("HE-AAC", .initCodec, .audio) { $0.audioSpecificConfig = [0x2A, 0x10] },
        .initSpec("channelConfiguration 0", .initCodec, .audio) { $0.audioSpecificConfig = [0x12, 0x00] },
        .fixture("CHANNELS 6 for stereo", .masterChannels) { try $0.replaceText(in: "master.m3u8", #"CHANNELS="2""#, with: #"CHANNELS="6""#) },
    ]
}

struct FPSv2AdmissionTests {
    @Test func appendixAPackageIsAdmitted() throws {
        let data = try PackageFixture.valid().zip()
        let package = FPSv2Package(archiveData: data)
        let report = FPSv2Admission.check(package)
        #expect(report.results.map(\.check) == AdmissionCheck.allCases)
        #expect(report.isAdmitted, "\(report)")
        #expect(report.results.allSatisfy { $0.status == .passed })
        try ZIPReader(data: data).verifyExactLayout()

        let admitted = try FPSv2Admission.admit(package)
        #expect(admitted.policyUUID == Vectors.uuid)
        #expect(admitted.iv == Vectors.iv)
        #expect(admitted.components.map(\.kind) == [.video, .audio])
        #expect(admitted.components.map(\.keyBinding) == [Vectors.videoKeyBinding, Vectors.audioKeyBinding])
        #expect(admitted.components.map(\.keyAccess.policyBinding.hash) == [Vectors.videoPolicyBinding, Vectors.audioPolicyBinding])
        #expect(admitted.components.map(\.contentIdentifier) == ["\(Vectors.uuid)/video", "\(Vectors.uuid)/audio"])
        #expect(admitted.components.map(\.keyURI) == ["skd://\(Vectors.uuid)/video", "skd://\(Vectors.uuid)/audio"])
        #expect(admitted.component(.audio)?.channelConfiguration == 2)
        #expect(admitted.classification == FPSv2Classification(flagged: []))
        #expect(admitted.segmentCount == 3)
        #expect(admitted.duration == 16.5)
        let storedManifest = try #require(try PackageFixture.valid()["manifest.json"])
        #expect(admitted.manifestBytes == storedManifest)
        #expect(admitted.policy.components?.entries.count == 2)
        #expect(try admitted.read(.segment(component: "audio", number: 2)) == syntheticSegment(number: 2))
        #expect(admitted.size(of: .initSegment(component: "video")) == UInt64(try InitSpec(.video).bytes().count))
        #expect(throws: FPSv2Error.self) { try admitted.read(.segment(component: "audio", number: 3)) }
    }

    /// Each entry's stored range is its bytes in the archive file (the byte-range views), found
    /// here by its own bytes' position in the file; an entry the package does not have is refused.
    @Test func storedRangesAreTheEntriesBytesInTheFile() throws {
        let data = try PackageFixture.valid().zip()
        let admitted = try FPSv2Admission.admit(FPSv2Package(archiveData: data))
        var end: UInt64 = 0
        for name in admitted.entryNames {
            let range = try #require(try admitted.storedRange(of: name))
            let bytes = try admitted.read(name)
            #expect(data[Int(range.lowerBound)..<Int(range.upperBound)] == bytes, "\(name)")
            // Entries are back to back: each range starts after the previous one's data and its own
            // 30-byte local header and name (the exact layout).
            #expect(range.lowerBound == end + 30 + UInt64(name.name.utf8.count), "\(name)")
            end = range.upperBound
        }
        #expect(throws: FPSv2Error.self) { try admitted.storedRange(of: .segment(component: "audio", number: 3)) }
    }

    @Test func videoOnlyPackageIsAdmitted() throws {
        let package = FPSv2Package(archiveData: try PackageFixture.valid(audio: false).zip())
        let report = FPSv2Admission.check(package)
        #expect(report.isAdmitted, "\(report)")
        #expect(report.result(for: .segmentAlignment)?.status == .notApplicable)
        #expect(report.result(for: .masterChannels)?.status == .notApplicable)
        let admitted = try FPSv2Admission.admit(package)
        #expect(admitted.components.map(\.kind) == [.video])
    }

    @Test func readerVariantsTheSpecAllows() throws {
        var fixture = try PackageFixture.valid()
        // Lowercase IV hex (§7.2 "Hexadecimal case"), no IV attribute at all (§7.3 #3).
        try fixture.replaceText(in: "video.m3u8", "IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF", with: "IV=0xf0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        try fixture.replaceText(in: "audio.m3u8", ",IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF", with: "")
        // A bare-string policy binding, a flagged classification, port 443 spelled out in both urls.
        try fixture.editKeyAccess(0) { $0.setting("policyBinding", .string(Vectors.videoPolicyBinding)) }
        try fixture.editPolicy { policy in
            policy.setting(TDFPolicy.classificationKey, .object(JSONObject([("v", 1), ("filter", "passed"), ("flagged", ["violence"])])))
        }
        try fixture.editKeyAccess(0) { $0.setting("url", .string("https://PLATFORM.arkavo.net:443")) }
        try fixture.editKeyAccess(1) { $0.setting("url", .string("https://PLATFORM.arkavo.net:443")) }
        let admitted = try FPSv2Admission.admit(FPSv2Package(archiveData: try fixture.zip()))
        #expect(admitted.classification?.flagged == ["violence"])
    }

    @Test func acceptedKeyServiceComesFromTheOptions() throws {
        var fixture = try PackageFixture.valid()
        try fixture.editKeyAccess(0) { $0.setting("url", .string("https://kas.example.com")) }
        try fixture.editKeyAccess(1) { $0.setting("url", .string("https://kas.example.com")) }
        let package = FPSv2Package(archiveData: try fixture.zip())
        let refused = FPSv2Admission.check(package)
        #expect(refused.firstFailure?.check == .keyAccessURL)
        // The refusal names the package's key service and the accepted ones, normalized.
        #expect(refused.firstFailure?.detail
                == "the package's key service is https://kas.example.com, and the accepted one is https://platform.arkavo.net")
        #expect(refused.keyServiceURL == "https://kas.example.com")
        let two = FPSv2Admission.Options(acceptedKeyServiceURLs: [KeyServiceURL.platform, "https://other.example:8443/"])
        #expect(FPSv2Admission.check(package, options: two).firstFailure?.detail == "the package's key service is "
                + "https://kas.example.com, and the accepted ones are https://platform.arkavo.net, https://other.example:8443")
        let options = FPSv2Admission.Options(acceptedKeyServiceURLs: ["https://kas.example.com/"])
        #expect(FPSv2Admission.check(package, options: options).isAdmitted)
    }

    /// One vocabulary for every tool that prints admission: text and JSON.
    @Test func statusLabelsAreTheToolsVocabulary() {
        let labels: [(AdmissionCheckResult.Status, String, String)] = [
            (.passed, "pass", "pass"), (.failed, "FAIL", "fail"), (.notApplicable, "n/a", "n/a"),
            (.notRun, "not run", "not run"), (.verifiedOnRead, "verified on read", "verified on read"),
        ]
        for (status, label, json) in labels {
            #expect(status.label == label && status.jsonValue == json)
        }
        #expect(AdmissionCheckResult(check: .keyAccessURL, status: .failed, detail: "x").description
                == "[FAIL] \(AdmissionCheck.keyAccessURL.rawValue): x")
    }

    /// A byte flipped in a stored segment after writing: the read fails its CRC-32 and says the
    /// package is corrupted (admission itself reads no segment).
    @Test func aFlippedSegmentByteIsACorruptedPackage() throws {
        let fixture = try PackageFixture.valid()
        var bytes = try fixture.zip()
        let reader = try ZIPReader(data: bytes)
        let entry = try #require(reader.entries.first { $0.name == "video-segment1.m4s" })
        bytes[Int(entry.localHeaderOffset) + 30 + entry.name.utf8.count + 5] ^= 0x80
        let admitted = try FPSv2Admission.admit(FPSv2Package(archiveData: bytes))
        let error = #expect(throws: FPSv2Error(.corrupted, "")) { try admitted.read(.segment(component: "video", number: 1)) }
        #expect(error?.reason == "video-segment1.m4s failed its CRC-32 check: the package is corrupted")
        #expect(try admitted.read(.segment(component: "video", number: 0)).isEmpty == false)
    }

    @Test func classificationCanBeMadeOptional() throws {
        var fixture = try PackageFixture.valid()
        try fixture.editPolicy { $0.removing(TDFPolicy.classificationKey) }
        let package = FPSv2Package(archiveData: try fixture.zip())
        let report = FPSv2Admission.check(package, options: FPSv2Admission.Options(requireReadableClassification: false))
        #expect(report.isAdmitted)
        #expect(report.result(for: .classification)?.status == .notApplicable)
    }

    @Test(arguments: Mutation.all)
    func eachCheckRefusesItsMutation(_ mutation: Mutation) throws {
        let (package, options) = try mutation.apply()
        let report = FPSv2Admission.check(package, options: options)
        #expect(report.results.map(\.check) == AdmissionCheck.allCases)
        let failure = try #require(report.firstFailure, "\(report)")
        #expect(failure.check == mutation.expected, "\(failure)")
        #expect(!report.isAdmitted)
        let error = try #require(throws: FPSv2Error.self) { try FPSv2Admission.admit(package, options: options) }
        #expect(error.code == .refused)
        #expect(error.check == mutation.expected)
        // Admission stops at the first failure.
        #expect(error.reason == failure.detail)
    }

    @Test func everyCheckHasAMutation() {
        let covered = Set(Mutation.all.map(\.expected))
        let missing = AdmissionCheck.allCases.filter { !covered.contains($0) }
        #expect(missing.isEmpty, "no mutation fails \(missing)")
    }

    @Test func stopsAtTheFirstFailure() throws {
        var fixture = try PackageFixture.valid()
        fixture["notes.txt"] = Data("x".utf8)
        let report = FPSv2Admission.check(FPSv2Package(archiveData: try fixture.zip()))
        #expect(report.firstFailure?.check == .entryNames)
        // Checks that need the names are not run; independent ones still are.
        #expect(report.result(for: .requiredEntries)?.status == .notRun)
        #expect(report.result(for: .exactLayout)?.status == .passed)
    }

    @Test func everyPrefixOfThePackageIsRefused() throws {
        let data = try PackageFixture.valid().zip()
        for length in 0..<data.count {
            let report = FPSv2Admission.check(FPSv2Package(archiveData: data.prefix(length)))
            #expect(!report.isAdmitted)
            #expect(report.firstFailure != nil)
        }
    }

    @Test func everyPrefixOfEachMetadataEntryIsRefused() throws {
        let fixture = try PackageFixture.valid()
        for name in ["manifest.json", "master.m3u8", "video.m3u8", "audio.m3u8", "video-init.mp4", "audio-init.mp4"] {
            let full = try #require(fixture[name])
            for length in 0..<full.count {
                var truncated = fixture
                truncated[name] = full.prefix(length)
                let report = FPSv2Admission.check(FPSv2Package(archiveData: try truncated.zip()))
                #expect(report.firstFailure != nil, "\(name) cut at \(length) was admitted")
            }
        }
    }

    @Test func directoryPackage() throws {
        let path = try PackageFixture.valid().directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let package = try FPSv2Package(path: path)
        #expect(package.isDirectory)
        let report = FPSv2Admission.check(package)
        #expect(report.isAdmitted, "\(report)")
        for result in report.results where result.check.isContainerCheck {
            #expect(result.status == .notApplicable)
        }
        let admitted = try FPSv2Admission.admit(package)
        #expect(try admitted.read(.segment(component: "video", number: 0)) == syntheticSegment(number: 0))
        // A directory is no one file: its entries have no range in it.
        #expect(try admitted.storedRange(of: .segment(component: "video", number: 0)) == nil)

        try FileManager.default.createDirectory(atPath: path + "/extra", withIntermediateDirectories: false)
        #expect(FPSv2Admission.check(package).firstFailure?.check == .entryNames)
        try FileManager.default.removeItem(atPath: path + "/extra")
        try FileManager.default.createSymbolicLink(atPath: path + "/video-segment3.m4s", withDestinationPath: path + "/video-segment2.m4s")
        #expect(FPSv2Admission.check(package).firstFailure?.check == .entryNames)
        try FileManager.default.removeItem(atPath: path + "/video-segment3.m4s")
        #expect(FPSv2Admission.check(package).isAdmitted)
    }

    @Test func archiveFilePackage() throws {
        let path = NSTemporaryDirectory() + "fpsv2-test-" + UUID().uuidString + ".tdf"
        try PackageFixture.valid().zip().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let package = try FPSv2Package(path: path)
        #expect(!package.isDirectory)
        #expect(try FPSv2Admission.admit(package).segmentCount == 3)
        #expect(throws: FPSv2Error.self) { try FPSv2Package(path: path + ".missing") }
    }

    @Test func reasonsHoldNoSecrets() throws {
        for mutation in Mutation.all {
            let (package, options) = try mutation.apply()
            for result in FPSv2Admission.check(package, options: options).results {
                #expect(!result.detail.contains(Vectors.uuid), "\(mutation.name): \(result.check)")
                #expect(!result.detail.contains(Vectors.videoPolicyBinding))
                #expect(!result.detail.contains(Vectors.methodIV))
            }
        }
    }
}
