import COpenSSL
import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct PEMTests {
    // MARK: armour

    @Test func encodingMatchesOpenSSLByteForByte() throws {
        let fixtures = try AsymFixtures.shared.get()
        let opensslPEM = try fixtures.text("rsa2048.pem")
        let key = try RSA.PrivateKey(pemRepresentation: opensslPEM)
        #expect(key.pemRepresentation == opensslPEM)
        let opensslPublic = try fixtures.text("rsa2048.pub.pem")
        #expect(key.publicKey.pemRepresentation == opensslPublic)
        let ecPEM = try fixtures.text("p256.pem")
        #expect(try ECP256.Signing.PrivateKey(pemRepresentation: ecPEM).pemRepresentation == ecPEM)
    }

    @Test func acceptsCRLFAndTrailingSpaces() throws {
        let pem = try AsymFixtures.shared.get().text("p256.pub.pem")
        let crlf = pem.replacingOccurrences(of: "\n", with: " \r\n")
        #expect(try ECP256.KeyAgreement.PublicKey(pemRepresentation: crlf) == ECP256.KeyAgreement.PublicKey(pemRepresentation: pem))
        let noFinalNewline = String(pem.dropLast())
        #expect(try ECP256.KeyAgreement.PublicKey(pemRepresentation: noFinalNewline) == ECP256.KeyAgreement.PublicKey(pemRepresentation: pem))
    }

    @Test func wrongLabelsAreRefused() throws {
        let fixtures = try AsymFixtures.shared.get()
        let rsaPublic = try fixtures.text("rsa2048.pub.pem")
        let relabelled = rsaPublic.replacingOccurrences(of: "PUBLIC KEY", with: "CERTIFICATE")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(pemRepresentation: relabelled) }
        // SPKI content under the PKCS#1 label does not decode as PKCS#1.
        let pkcs1Label = rsaPublic.replacingOccurrences(of: "PUBLIC KEY", with: "RSA PUBLIC KEY")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(pemRepresentation: pkcs1Label) }
        let rsaPrivate = try fixtures.text("rsa2048.pem")
        let ecLabel = rsaPrivate.replacingOccurrences(of: "PRIVATE KEY", with: "EC PRIVATE KEY")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PrivateKey(pemRepresentation: ecLabel) }
        let mismatched = rsaPublic.replacingOccurrences(of: "END PUBLIC KEY", with: "END PUBLIC KEYS")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(pemRepresentation: mismatched) }
        let lowercase = rsaPublic.replacingOccurrences(of: "PUBLIC KEY", with: "public key")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(pemRepresentation: lowercase) }
    }

    @Test func privatePEMGivenToPublicInitIsRefused() throws {
        let fixtures = try AsymFixtures.shared.get()
        for name in ["rsa2048.pem", "rsa2048.pkcs1.pem"] {
            let text = try fixtures.text(name)
            #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(pemRepresentation: text) }
        }
        let ec = try fixtures.text("p256.pem")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(pemRepresentation: ec) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.Signing.PublicKey(pemRepresentation: ec) }
        // Public PEM to a private init, and keys of the other algorithm.
        let rsaPublic = try fixtures.text("rsa2048.pub.pem")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PrivateKey(pemRepresentation: rsaPublic) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PrivateKey(pemRepresentation: try fixtures.text("rsa2048.pem")) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(pemRepresentation: try fixtures.text("p256.pub.pem")) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PrivateKey(pemRepresentation: ec) }
    }

    @Test(arguments: [
        "-----BEGIN PUBLIC KEY-----\nMFkw!!EHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n",   // not base64
        "-----BEGIN PUBLIC KEY-----\nQUJD\nRA=\n-----END PUBLIC KEY-----\n",                        // bad padding
        "-----BEGIN PUBLIC KEY-----\nQR==\n-----END PUBLIC KEY-----\n",                              // non-zero pad bits
        "-----BEGIN PUBLIC KEY-----\nQQ==QUJD\n-----END PUBLIC KEY-----\n",                          // padding mid-body
        "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n",                                    // empty body
        "-----BEGIN PUBLIC KEY-----\nQUJD\n\nQUJD\n-----END PUBLIC KEY-----\n",                      // blank line in body
        "-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\nQUJD\n-----END PUBLIC KEY-----\n",      // RFC 1421 header
        "-----BEGIN PUBLIC KEY-----\nQUJD\n",                                                        // no END
        "junk\n-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----\n",                        // text outside
        "-----BEGIN  PUBLIC KEY-----\nQUJD\n-----END  PUBLIC KEY-----\n",                            // label with leading space
        "-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----\n-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----\n",
        "",
        "\n\n",
        "-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----\nQUJD\n",                        // trailing body
    ])
    func malformedArmourIsRefused(text: String) {
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try PEM.decode(text, labels: ["PUBLIC KEY"]) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(pemRepresentation: text) }
    }

    @Test func base64IsCanonicalAndRoundTrips() throws {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = PEMBase64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString())
            if count > 0 { #expect(PEMBase64.decode(Array(text.utf8)) == bytes) }
        }
        #expect(PEMBase64.decode(Array("QUI=".utf8)) == Array("AB".utf8))
        #expect(PEMBase64.decode(Array("QUJ=".utf8)) == nil)
        #expect(PEMBase64.decode(Array("QUI".utf8)) == nil)
        #expect(PEMBase64.decode(Array("Q===".utf8)) == nil)
        #expect(PEMBase64.decode(Array("QU-=".utf8)) == nil)
    }

    @Test func armourKeepsLabelAndWrapsAt64() throws {
        let der = (0..<200).map { UInt8(truncatingIfNeeded: $0) }
        let text = PEM.encode(der, label: "TEST LABEL")
        let lines = text.split(separator: "\n")
        #expect(lines.first == "-----BEGIN TEST LABEL-----")
        #expect(lines.last == "-----END TEST LABEL-----")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.count <= 64 })
        #expect(lines[1].count == 64)
        let block = try PEM.decode(text, labels: ["TEST LABEL"])
        #expect(block.der == der)
    }

    // MARK: truncation: every prefix throws .invalidKeyEncoding, none traps

    @Test(arguments: ["rsa2048.pem", "rsa2048.pkcs1.pem", "rsa2048.pub.pem", "p256.pem", "p256.pub.pem", "p256.sec1.pem"])
    func everyPrefixOfPEMTextIsRefused(name: String) throws {
        let text = try AsymFixtures.shared.get().text(name)
        let trimmed = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        for length in 0..<trimmed.count {
            let prefix = String(decoding: trimmed.prefix(length), as: UTF8.self)
            let error = AsymTestSupport.keyError(pem: prefix, kind: name)
            #expect(error == CryptoError(.invalidKeyEncoding, ""), "prefix of \(length) bytes")
        }
        #expect(AsymTestSupport.keyError(pem: String(decoding: trimmed, as: UTF8.self), kind: name) == nil)
    }

    @Test(arguments: ["rsa2048.der", "rsa2048.pkcs1.der", "rsa2048.pub.der", "rsa2048.pkcs1pub.der", "p256.der", "p256.pub.der", "p256.sec1.der"])
    func everyPrefixOfDERIsRefused(name: String) throws {
        let der = try AsymFixtures.shared.get().bytes(name)
        for length in 0..<der.count {
            let error = AsymTestSupport.keyError(der: Array(der.prefix(length)), kind: name)
            #expect(error == CryptoError(.invalidKeyEncoding, ""), "prefix of \(length) bytes")
        }
        #expect(AsymTestSupport.keyError(der: der, kind: name) == nil)
        #expect(AsymTestSupport.keyError(der: der + [0], kind: name) == CryptoError(.invalidKeyEncoding, ""))
    }

    @Test func everySingleByteCorruptionOfAP256SPKIIsRefused() throws {
        let der = try AsymFixtures.shared.get().bytes("p256.pub.der")
        for index in der.indices {
            var corrupted = der
            corrupted[index] ^= 0xFF
            #expect(throws: CryptoError.self, "byte \(index)") { try ECP256.KeyAgreement.PublicKey(derRepresentation: corrupted) }
        }
    }

    @Test func derFrameRules() throws {
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try DERFrame.requireSingleSequence([0x30, 0x80, 0x02, 0x01, 0x00, 0x00, 0x00]) }  // indefinite
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try DERFrame.requireSingleSequence([0x30, 0x81, 0x03, 0x02, 0x01, 0x00]) }  // non-minimal
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try DERFrame.requireSingleSequence([0x31, 0x03, 0x02, 0x01, 0x00]) }        // SET
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try DERFrame.requireSingleSequence([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try DERFrame.requireSingleSequence([0x30, 0x00]) }                          // empty
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try DERFrame.requireSingleSequence([0x30, 0x03, 0x04, 0x01, 0x00]) }        // OCTET STRING first
        let fixtures = try AsymFixtures.shared.get()
        let expected: [(String, DERFrame.Shape)] = [
            ("rsa2048.der", .privateKeyInfo), ("rsa2048.pkcs1.der", .rsaPrivateKey), ("rsa2048.pub.der", .subjectPublicKeyInfo),
            ("rsa2048.pkcs1pub.der", .rsaPublicKey), ("p256.der", .privateKeyInfo), ("p256.sec1.der", .ecPrivateKey),
            ("p256.pub.der", .subjectPublicKeyInfo),
        ]
        for (name, shape) in expected {
            #expect(try DERFrame.shape(fixtures.bytes(name)) == shape, "\(name)")
        }
    }

    /// Failures leave nothing on this thread's OpenSSL error queue for a later caller to read.
    @Test func failuresLeaveTheErrorQueueEmpty() throws {
        let fixtures = try AsymFixtures.shared.get()
        ERR_clear_error()
        var spki = try fixtures.bytes("p256.pub.der")
        spki[spki.count - 1] ^= 0x01
        #expect(throws: CryptoError.self) { try ECP256.KeyAgreement.PublicKey(derRepresentation: spki) }
        #expect(ERR_peek_error() == 0)
        #expect(throws: CryptoError.self) { try RSA.PrivateKey(derRepresentation: fixtures.bytes("rsa2048.pub.der")) }
        #expect(throws: CryptoError.self) { try RSA.PublicKey(pemRepresentation: fixtures.text("rsa1024.pub.pem")) }
        var pkcs1 = try fixtures.bytes("rsa2048.pkcs1.der")
        pkcs1[20] ^= 0xFF
        #expect(throws: CryptoError.self) { try RSA.PrivateKey(derRepresentation: pkcs1) }
        #expect(ERR_peek_error() == 0)
        let key = try RSA.PrivateKey(pemRepresentation: fixtures.text("rsa2048.pem"))
        #expect(throws: CryptoError.self) { try key.decrypt(Data(repeating: 7, count: 256), padding: .oaepSHA1) }
        #expect(!key.publicKey.isValidSignature(Data(repeating: 7, count: 256), for: Data()))
        #expect(throws: CryptoError.self) { try ECP256.KeyAgreement.PublicKey(x963Representation: [0x04] + [UInt8](repeating: 1, count: 64)) }
        #expect(throws: CryptoError.self) { try ECP256.Signing.ECDSASignature(derRepresentation: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(ERR_peek_error() == 0)
    }

    @Test func derOfOneStructureIsRefusedByAnother() throws {
        let fixtures = try AsymFixtures.shared.get()
        let rsaPKCS1 = try fixtures.bytes("rsa2048.pkcs1.der")
        let rsaSPKI = try fixtures.bytes("rsa2048.pub.der")
        let ecSEC1 = try fixtures.bytes("p256.sec1.der")
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(derRepresentation: rsaPKCS1) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PrivateKey(derRepresentation: rsaSPKI) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PrivateKey(derRepresentation: ecSEC1) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.Signing.PrivateKey(derRepresentation: rsaPKCS1) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.Signing.PublicKey(derRepresentation: rsaSPKI) }
        // SEC1 content under the PKCS#8 label, and PKCS#1 under the PKCS#8 label.
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) {
            try ECP256.Signing.PrivateKey(pemRepresentation: PEM.encode(ecSEC1, label: "PRIVATE KEY"))
        }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) {
            try RSA.PrivateKey(pemRepresentation: PEM.encode(rsaPKCS1, label: "PRIVATE KEY"))
        }
    }
}

// MARK: - support shared by the asymmetric test files

/// Keys made by the openssl CLI once per test run. They are read into memory and their
/// temporary directory removed at once; tests that run the CLI use their own AsymWorkspace.
struct AsymFixtures: Sendable {
    private let files: [String: [UInt8]]

    static let shared: Result<AsymFixtures, any Error> = Result { try AsymFixtures.make() }

    private static func make() throws -> AsymFixtures {
        let workspace = try AsymWorkspace()
        let o = workspace.path
        let commands: [[String]] = [
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", o("rsa2048.pem")],
            ["rsa", "-in", o("rsa2048.pem"), "-traditional", "-out", o("rsa2048.pkcs1.pem")],
            ["rsa", "-in", o("rsa2048.pem"), "-traditional", "-outform", "DER", "-out", o("rsa2048.pkcs1.der")],
            ["pkcs8", "-topk8", "-nocrypt", "-in", o("rsa2048.pem"), "-outform", "DER", "-out", o("rsa2048.der")],
            ["pkey", "-in", o("rsa2048.pem"), "-pubout", "-out", o("rsa2048.pub.pem")],
            ["pkey", "-in", o("rsa2048.pem"), "-pubout", "-outform", "DER", "-out", o("rsa2048.pub.der")],
            ["rsa", "-in", o("rsa2048.pem"), "-RSAPublicKey_out", "-out", o("rsa2048.pkcs1pub.pem")],
            ["rsa", "-in", o("rsa2048.pem"), "-RSAPublicKey_out", "-outform", "DER", "-out", o("rsa2048.pkcs1pub.der")],
            ["rsa", "-in", o("rsa2048.pem"), "-modulus", "-noout", "-out", o("rsa2048.modulus.txt")],
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", o("rsa1024.pem")],
            ["rsa", "-in", o("rsa1024.pem"), "-traditional", "-out", o("rsa1024.pkcs1.pem")],
            ["pkey", "-in", o("rsa1024.pem"), "-pubout", "-out", o("rsa1024.pub.pem")],
            ["pkey", "-in", o("rsa1024.pem"), "-pubout", "-outform", "DER", "-out", o("rsa1024.pub.der")],
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", o("p256.pem")],
            ["pkcs8", "-topk8", "-nocrypt", "-in", o("p256.pem"), "-outform", "DER", "-out", o("p256.der")],
            ["pkey", "-in", o("p256.pem"), "-pubout", "-out", o("p256.pub.pem")],
            ["pkey", "-in", o("p256.pem"), "-pubout", "-outform", "DER", "-out", o("p256.pub.der")],
            ["ec", "-in", o("p256.pem"), "-pubout", "-conv_form", "compressed", "-outform", "DER", "-out", o("p256.pubc.der")],
            ["ec", "-in", o("p256.pem"), "-out", o("p256.sec1.pem")],
            ["ec", "-in", o("p256.pem"), "-outform", "DER", "-out", o("p256.sec1.der")],
            ["ecparam", "-name", "prime256v1", "-genkey", "-out", o("p256.ecparam.pem")],
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp384r1", "-out", o("p384.pem")],
            ["pkey", "-in", o("p384.pem"), "-pubout", "-out", o("p384.pub.pem")],
            ["pkey", "-in", o("p384.pem"), "-pubout", "-outform", "DER", "-out", o("p384.pub.der")],
            ["ec", "-in", o("p384.pem"), "-out", o("p384.sec1.pem")],
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp256k1", "-out", o("k256.pem")],
        ]
        var files: [String: [UInt8]] = [:]
        for command in commands {
            try AsymTestSupport.openssl(command)
            if let output = command.last { files[URL(fileURLWithPath: output).lastPathComponent] = try AsymTestSupport.read(output) }
        }
        return AsymFixtures(files: files)
    }

    struct Missing: Error {}

    func bytes(_ name: String) throws -> [UInt8] {
        guard let bytes = files[name] else { throw Missing() }
        return bytes
    }

    func text(_ name: String) throws -> String { String(decoding: try bytes(name), as: UTF8.self) }
}

/// A private temporary directory, removed when the value is released.
final class AsymWorkspace {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("crypto-asym-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    func write(_ bytes: some DataProtocol, _ name: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    func read(_ name: String) throws -> [UInt8] { try AsymTestSupport.read(path(name)) }
}

enum AsymTestSupport {
    struct CommandFailed: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        var description: String { "openssl \(arguments.first ?? "") exited with \(status)" }
    }

    /// Runs /usr/bin/openssl with all input and output through files; returns the exit status
    /// when `allowFailure`, else throws on a non-zero one. Its output is never printed.
    @discardableResult
    static func openssl(_ arguments: [String], allowFailure: Bool = false) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 && !allowFailure {
            throw CommandFailed(arguments: arguments, status: process.terminationStatus)
        }
        return process.terminationStatus
    }

    static func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8? = nil
        for character in hex.utf8 {
            guard let nibble = UInt8(String(UnicodeScalar(character)), radix: 16) else { continue }
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return out
    }

    /// The CryptoError a fixture's kind of key gives for `pem`, or nil when it imports.
    static func keyError(pem: String, kind: String) -> CryptoError? {
        do {
            if kind.hasPrefix("rsa") {
                if kind.contains("pub") { _ = try RSA.PublicKey(pemRepresentation: pem) } else { _ = try RSA.PrivateKey(pemRepresentation: pem) }
            } else {
                if kind.contains("pub") { _ = try ECP256.KeyAgreement.PublicKey(pemRepresentation: pem) } else { _ = try ECP256.KeyAgreement.PrivateKey(pemRepresentation: pem) }
            }
            return nil
        } catch {
            return error
        }
    }

    static func keyError(der: [UInt8], kind: String) -> CryptoError? {
        do {
            switch kind {
            case "rsa2048.pkcs1pub.der":
                // PKCS#1 public DER only arrives armoured; check the same bytes through PEM.
                _ = try RSA.PublicKey(pemRepresentation: PEM.encode(der, label: "RSA PUBLIC KEY"))
            case _ where kind.hasPrefix("rsa") && kind.contains("pub"): _ = try RSA.PublicKey(derRepresentation: der)
            case _ where kind.hasPrefix("rsa"): _ = try RSA.PrivateKey(derRepresentation: der)
            case _ where kind.contains("pub"): _ = try ECP256.Signing.PublicKey(derRepresentation: der)
            default: _ = try ECP256.Signing.PrivateKey(derRepresentation: der)
            }
            return nil
        } catch {
            return error
        }
    }
}
