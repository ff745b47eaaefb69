import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import Testing
import MediaDRMZIP
@testable import MediaDRMTDF

/// Runs /usr/bin/openssl with `arguments`, feeding `input` on stdin; returns stdout. Used as the
/// independent implementation in cross-checks.
func openssl(_ arguments: [String], input: Data = Data()) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    _ = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TDFError(.io, "openssl \(arguments.first ?? "") exited with \(process.terminationStatus)")
    }
    return output
}

/// A scratch directory removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tdf-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Deterministic test bytes.
func pattern(_ count: Int, seed: UInt8 = 7) -> Data {
    var state = UInt32(seed) &* 2_654_435_761 &+ 1
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 1_664_525 &+ 1_013_904_223
        bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
    }
    return Data(bytes)
}

/// Keys shared by the tests (RSA generation is slow enough to do once).
enum TestKeys {
    static let rsa: RSA.PrivateKey = {
        do { return try RSA.PrivateKey(keySize: 2048) } catch { fatalError("RSA key generation failed in test setup") }
    }()
    static let otherRSA: RSA.PrivateKey = {
        do { return try RSA.PrivateKey(keySize: 2048) } catch { fatalError("RSA key generation failed in test setup") }
    }()
    static let ec: ECP256.KeyAgreement.PrivateKey = {
        do { return try ECP256.KeyAgreement.PrivateKey() } catch { fatalError("P-256 key generation failed in test setup") }
    }()
    static let otherEC: ECP256.KeyAgreement.PrivateKey = {
        do { return try ECP256.KeyAgreement.PrivateKey() } catch { fatalError("P-256 key generation failed in test setup") }
    }()
}

func options(_ key: KASPublicKey, segmentSize: Int = 1024, policy: TDFPolicy = TDFPolicy(dataAttributes: ["https://example.com/attr/tier/value/gold"]),
             mimeType: String = "application/octet-stream", bindingForm: TDFBinding.Form = .hex) -> TDFEncryptOptions {
    TDFEncryptOptions(kasURL: "https://kas.example.com", kasPublicKey: key, kid: "r1", policy: policy,
                      segmentSize: segmentSize, mimeType: mimeType, bindingForm: bindingForm)
}

/// The two entries of a Standard TDF archive, to tamper with and rebuild.
struct TDFParts {
    var payload: Data
    var manifest: Data

    init(archive: Data) throws {
        let zip = try ZIPReader(source: ZIPMemorySource(archive))
        let payloadEntry = try #require(zip.entry(named: "0.payload"))
        let manifestEntry = try #require(zip.entry(named: "0.manifest.json"))
        payload = try zip.read(payloadEntry)
        manifest = try zip.read(manifestEntry)
    }

    func archive() throws -> Data {
        let sink = ZIPMemorySink()
        let zip = try ZIPWriter(sink: sink, layout: .standard, allowZIP64: false)
        try zip.addEntry(name: "0.payload", data: payload, method: .stored)
        try zip.addEntry(name: "0.manifest.json", data: manifest, method: .stored)
        _ = try zip.finish()
        return sink.data
    }

    /// Rewrites the manifest through the model.
    mutating func editManifest(_ edit: (inout TDFManifest) throws -> Void) throws {
        var model = try TDFManifest(parsing: manifest)
        try edit(&model)
        manifest = model.jsonData()
    }
}
