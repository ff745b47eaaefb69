import Foundation
import MediaDRMFPSv2
import MediaDRMJSON
import Testing

/// The fps-v2 reader vectors shared with the web player (`Tests-E2E/ReaderVectors`, made by
/// `Tools/python/make_reader_vectors.py`; docs/web.md): the Swift reader must reach each
/// vector's verdict, naming the same check. The browser suite runs the same list through the
/// JavaScript reader.
@Suite struct ReaderVectorTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("../../ReaderVectors").standardized.path

    /// The vectors name checks by their case names (as the JavaScript reader does); the raw
    /// values are the long descriptions.
    static let checks: [String: AdmissionCheck] = [
        "archiveSize": .archiveSize, "endRecord": .endRecord, "zip32": .zip32, "entryCount": .entryCount,
        "expandedSize": .expandedSize, "safeNames": .safeNames, "uniqueNames": .uniqueNames, "storedEntries": .storedEntries,
        "headersAgree": .headersAgree, "exactLayout": .exactLayout, "entryNames": .entryNames, "requiredEntries": .requiredEntries,
        "metadataSizes": .metadataSizes, "manifestEntryRead": .manifestEntryRead, "manifestJSON": .manifestJSON, "manifestSchema": .manifestSchema,
        "policyEncoding": .policyEncoding, "policyUUID": .policyUUID, "policyDataAttributes": .policyDataAttributes, "profileVersion": .profileVersion,
        "componentList": .componentList, "keyBindingForm": .keyBindingForm, "classification": .classification, "keyAccessCount": .keyAccessCount,
        "keyAccessShape": .keyAccessShape, "keyAccessURL": .keyAccessURL, "keyAccessSameURL": .keyAccessSameURL, "policyBindingForm": .policyBindingForm,
        "methodIV": .methodIV, "componentEntries": .componentEntries, "segmentNumbering": .segmentNumbering, "componentEntryRead": .componentEntryRead,
        "masterGrammar": .masterGrammar, "masterComponents": .masterComponents, "mediaGrammar": .mediaGrammar, "mediaKeyURI": .mediaKeyURI,
        "mediaIV": .mediaIV, "mediaSegments": .mediaSegments, "segmentAlignment": .segmentAlignment, "initBoxTree": .initBoxTree,
        "initTrack": .initTrack, "initSampleEntry": .initSampleEntry, "initOriginalFormat": .initOriginalFormat, "initScheme": .initScheme,
        "initTrackEncryption": .initTrackEncryption, "initPattern": .initPattern, "initCodec": .initCodec, "masterChannels": .masterChannels,
    ]

    struct Vector: Sendable, CustomStringConvertible {
        let file: String
        let check: String?
        var description: String { file }
    }

    static func load() throws -> (keyServiceURL: String, vectors: [Vector]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/vectors.json"))
        let root = try #require(try JSONParser.parse(data).object)
        let url = try #require(root["keyServiceURL"]?.string)
        let vectors = try #require(root["vectors"]?.array).map { value -> Vector in
            let object = try #require(value.object)
            return Vector(file: try #require(object["file"]?.string), check: object["check"]?.string)
        }
        return (url, vectors)
    }

    @Test func everyCheckHasItsName() {
        #expect(Set(Self.checks.values) == Set(AdmissionCheck.allCases))
    }

    @Test func theListHasTheValidPackageAndRefusalsOfManyChecks() throws {
        let (_, vectors) = try Self.load()
        #expect(vectors.contains { $0.check == nil })
        #expect(Set(vectors.compactMap(\.check)).count >= 15)
    }

    @Test(arguments: try ReaderVectorTests.load().vectors)
    func theSwiftReaderReachesTheVerdict(vector: Vector) throws {
        let (keyServiceURL, _) = try Self.load()
        let package = try FPSv2Package(archivePath: Self.directory + "/" + vector.file)
        let options = FPSv2Admission.Options(acceptedKeyServiceURLs: [keyServiceURL])
        do {
            _ = try FPSv2Admission.admit(package, options: options)
            #expect(vector.check == nil, "admitted, expected a refusal at \(vector.check ?? "")")
        } catch {
            let expected = try #require(vector.check.flatMap { Self.checks[$0] }, "\(vector.check ?? "nil") names no AdmissionCheck case")
            #expect(error.check == expected, "\(error)")
        }
    }
}
