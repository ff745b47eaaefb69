import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct P256KeyAgreementTests {
    private func secretBytes(_ secret: ECP256.SharedSecret) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    @Test func ecdhAgreesWithOpenSSL() throws {
        let fixtures = try AsymFixtures.shared.get()
        let workspace = try AsymWorkspace()
        let ours = try ECP256.KeyAgreement.PrivateKey()
        let theirs = try ECP256.KeyAgreement.PrivateKey(pemRepresentation: fixtures.text("p256.pem"))
        let theirPublic = try ECP256.KeyAgreement.PublicKey(pemRepresentation: fixtures.text("p256.pub.pem"))
        try workspace.write(fixtures.bytes("p256.pem"), "theirs.pem")
        try workspace.write(fixtures.bytes("p256.pub.pem"), "theirs.pub.pem")
        try workspace.write(Array(ours.pemRepresentation.utf8), "ours.pem")
        try workspace.write(Array(ours.publicKey.pemRepresentation.utf8), "ours.pub.pem")
        try AsymTestSupport.openssl(["pkeyutl", "-derive", "-inkey", workspace.path("theirs.pem"),
                                     "-peerkey", workspace.path("ours.pub.pem"), "-out", workspace.path("z1.bin")])
        try AsymTestSupport.openssl(["pkeyutl", "-derive", "-inkey", workspace.path("ours.pem"),
                                     "-peerkey", workspace.path("theirs.pub.pem"), "-out", workspace.path("z2.bin")])
        let opensslSecret = try workspace.read("z1.bin")
        #expect(opensslSecret.count == 32)
        #expect(try workspace.read("z2.bin") == opensslSecret)
        let secret = try ours.sharedSecretFromKeyAgreement(with: theirPublic)
        #expect(secretBytes(secret) == opensslSecret)
        #expect(try theirs.sharedSecretFromKeyAgreement(with: ours.publicKey) == secret)
        // The HKDF step over the agreed secret matches HKDF over OpenSSL's bytes.
        let salt = Data("salt".utf8)
        let derived = try secret.hkdfDerivedSymmetricKey(salt: salt, sharedInfo: Data(), outputByteCount: 32)
        #expect(derived == (try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: opensslSecret), salt: salt, info: Data(), outputByteCount: 32)))
        #expect("\(secret)" == "ECP256.SharedSecret(32 bytes)")
    }

    /// NIST CAVS ECC CDH primitive test vector, P-256, COUNT = 0.
    @Test func nistCDHKnownAnswer() throws {
        let peer = try ECP256.KeyAgreement.PublicKey(rawRepresentation: AsymTestSupport.bytes(hex:
            "700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287" +
            "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac"))
        let key = try ECP256.KeyAgreement.PrivateKey(rawRepresentation: AsymTestSupport.bytes(hex:
            "7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534"))
        #expect(key.publicKey.rawRepresentation == Data(AsymTestSupport.bytes(hex:
            "ead218590119e8876b29146ff89ca61770c4edbbf97d38ce385ed281d8a6b230" +
            "28af61281fd35e2fa7002523acc85a429cb06ee6648325389f59edfce1405141")))
        let secret = try key.sharedSecretFromKeyAgreement(with: peer)
        #expect(secretBytes(secret) == AsymTestSupport.bytes(hex: "46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b"))
    }

    @Test func publicRepresentationsRoundTripAndMatchOpenSSL() throws {
        let fixtures = try AsymFixtures.shared.get()
        let key = try ECP256.KeyAgreement.PublicKey(pemRepresentation: fixtures.text("p256.pub.pem"))
        let x963 = key.x963Representation
        #expect(x963.count == 65 && x963.first == 0x04)
        #expect(key.rawRepresentation == x963.dropFirst())
        #expect(key.derRepresentation == Data(try fixtures.bytes("p256.pub.der")))
        #expect(key.pemRepresentation == (try fixtures.text("p256.pub.pem")))
        let compressedSPKI = try fixtures.bytes("p256.pubc.der")
        #expect(key.compressedRepresentation == Data(compressedSPKI.suffix(33)))
        let variants = [
            try ECP256.KeyAgreement.PublicKey(x963Representation: x963),
            try ECP256.KeyAgreement.PublicKey(rawRepresentation: key.rawRepresentation),
            try ECP256.KeyAgreement.PublicKey(compressedRepresentation: key.compressedRepresentation),
            try ECP256.KeyAgreement.PublicKey(derRepresentation: key.derRepresentation),
            try ECP256.KeyAgreement.PublicKey(derRepresentation: compressedSPKI),
        ]
        for variant in variants {
            #expect(variant == key)
            // Exports are always uncompressed, whatever form came in.
            #expect(variant.derRepresentation == key.derRepresentation)
        }
    }

    @Test func privateRepresentationsRoundTripAndMatchOpenSSL() throws {
        let fixtures = try AsymFixtures.shared.get()
        let key = try ECP256.KeyAgreement.PrivateKey(pemRepresentation: fixtures.text("p256.pem"))
        #expect(key.derRepresentation == Data(try fixtures.bytes("p256.der")))
        #expect(key.pemRepresentation == (try fixtures.text("p256.pem")))
        #expect(key.rawRepresentation.count == 32)
        let publicKey = try ECP256.KeyAgreement.PublicKey(pemRepresentation: fixtures.text("p256.pub.pem"))
        for variant in [
            try ECP256.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation),
            try ECP256.KeyAgreement.PrivateKey(derRepresentation: fixtures.bytes("p256.der")),
            try ECP256.KeyAgreement.PrivateKey(derRepresentation: fixtures.bytes("p256.sec1.der")),
            try ECP256.KeyAgreement.PrivateKey(pemRepresentation: fixtures.text("p256.sec1.pem")),
        ] {
            #expect(variant.rawRepresentation == key.rawRepresentation)
            #expect(variant.publicKey == publicKey)
            #expect(variant.publicKey.derRepresentation == Data(try fixtures.bytes("p256.pub.der")))
            #expect(variant.derRepresentation == key.derRepresentation)
        }
        // `openssl ecparam -genkey` writes an EC PARAMETERS block before the key.
        let withParameters = try fixtures.text("p256.ecparam.pem")
        #expect(withParameters.contains("BEGIN EC PARAMETERS"))
        let imported = try ECP256.KeyAgreement.PrivateKey(pemRepresentation: withParameters)
        #expect(imported.rawRepresentation.count == 32)
        #expect("\(imported)" == "ECP256.KeyAgreement.PrivateKey")
    }

    @Test func keysOnOtherCurvesAreRefused() throws {
        let fixtures = try AsymFixtures.shared.get()
        for name in ["p384.pem", "p384.sec1.pem", "k256.pem"] {
            #expect(throws: CryptoError(.weakKey, ""), "\(name)") { try ECP256.KeyAgreement.PrivateKey(pemRepresentation: fixtures.text(name)) }
            #expect(throws: CryptoError(.weakKey, ""), "\(name)") { try ECP256.Signing.PrivateKey(pemRepresentation: fixtures.text(name)) }
        }
        #expect(throws: CryptoError(.weakKey, "")) { try ECP256.KeyAgreement.PublicKey(pemRepresentation: fixtures.text("p384.pub.pem")) }
        #expect(throws: CryptoError(.weakKey, "")) { try ECP256.Signing.PublicKey(derRepresentation: fixtures.bytes("p384.pub.der")) }
        // An EC PARAMETERS block naming another curve in front of a P-256 key.
        let p256 = try fixtures.text("p256.ecparam.pem")
        let secp384OID: [UInt8] = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
        let keyStart = try #require(p256.range(of: "-----BEGIN EC PRIVATE KEY")).lowerBound
        let mixed = PEM.encode(secp384OID, label: "EC PARAMETERS") + p256[keyStart...]
        #expect(throws: CryptoError(.weakKey, "")) { try ECP256.KeyAgreement.PrivateKey(pemRepresentation: mixed) }
    }

    @Test func pointsOffTheCurveAreRefused() throws {
        let key = try ECP256.KeyAgreement.PrivateKey().publicKey
        var offCurve = key.x963Representation
        offCurve[64] ^= 0x01
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(x963Representation: offCurve) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(rawRepresentation: offCurve.dropFirst()) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.Signing.PublicKey(x963Representation: offCurve) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(x963Representation: [0x04] + [UInt8](repeating: 0, count: 64)) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(x963Representation: [0x04] + [UInt8](repeating: 0xFF, count: 64)) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(x963Representation: [0x00]) }
        var wrongPrefix = key.x963Representation
        wrongPrefix[0] = 0x06   // hybrid form is not accepted
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(x963Representation: wrongPrefix) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(x963Representation: key.x963Representation.dropLast()) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(x963Representation: key.compressedRepresentation) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(compressedRepresentation: key.x963Representation) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(compressedRepresentation: [0x04] + key.compressedRepresentation.dropFirst()) }
        // The same point in an SPKI: OpenSSL's decoder refuses it as well.
        var spki = Array(key.derRepresentation)
        spki[spki.count - 1] ^= 0x01
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PublicKey(derRepresentation: spki) }
        // About half of all X values have no point; those compressed forms are refused, the others round-trip.
        var refused = 0
        for x in UInt8(1)...UInt8(16) {
            let compressed = [0x02] + [UInt8](repeating: 0, count: 31) + [x]
            do {
                let point = try ECP256.KeyAgreement.PublicKey(compressedRepresentation: compressed)
                #expect(point.compressedRepresentation == Data(compressed))
            } catch {
                #expect(error == CryptoError(.invalidKeyEncoding, ""))
                refused += 1
            }
        }
        #expect(refused > 0 && refused < 16)
    }

    /// The SPKI fast path (fixed prime256v1 header + point via EVP_PKEY_fromdata) and OSSL_DECODER
    /// read the same keys, write the same bytes, and refuse the same bad points.
    @Test func spkiFastPathAgreesWithTheGeneralDecoder() throws {
        for _ in 0..<16 {
            let key = try ECP256.KeyAgreement.PrivateKey().publicKey
            let der = Array(key.derRepresentation)
            #expect(der.count == P256Backend.spkiByteCount && der.starts(with: P256Backend.spkiPrefix))
            // Our header-prefixed export is byte for byte OSSL_ENCODER's.
            #expect(der == P256Backend.exportPublicSPKIGeneral(key.backing))
            let fast = try P256Backend.importPublic(der: der)
            let general = try P256Backend.importPublicGeneral(der: der)
            #expect(P256Backend.x963(fast) == P256Backend.x963(general))
            #expect(P256Backend.x963(fast) == Array(key.x963Representation))
            #expect(P256Backend.exportPublicSPKIGeneral(fast) == der)
        }
        let x963 = Array(try ECP256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        var offCurve = x963
        offCurve[64] ^= 0x01
        let badPoints: [[UInt8]] = [
            offCurve,
            [0x04] + [UInt8](repeating: 0, count: 64),                       // the origin (infinity has no affine form)
            [0x04] + [UInt8](repeating: 0xFF, count: 64),                    // coordinates >= p
            [0x04] + Array(x963[1...32]) + [UInt8](repeating: 0, count: 32), // X of a real point, Y = 0
        ]
        for point in badPoints {
            let spki = P256Backend.spkiPrefix + point
            #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try P256Backend.importPublic(der: spki) }
            #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try P256Backend.importPublicGeneral(der: spki) }
            #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.Signing.PublicKey(derRepresentation: spki) }
        }
        // A compressed point in an SPKI is not the fixed form: it takes the general decoder and agrees.
        let key = try ECP256.KeyAgreement.PrivateKey().publicKey
        let compressedSPKI: [UInt8] = [0x30, 0x39, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
                                       0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x22, 0x00]
            + Array(key.compressedRepresentation)
        let viaGeneral = Result { () throws(CryptoError) -> [UInt8] in P256Backend.x963(try P256Backend.importPublicGeneral(der: compressedSPKI)) }
        let viaPublic = Result { () throws(CryptoError) -> [UInt8] in P256Backend.x963(try P256Backend.importPublic(der: compressedSPKI)) }
        #expect(viaGeneral == viaPublic)
        // The fixed header with a trailing byte or with the point cut short is refused.
        let full = Array(key.derRepresentation)
        #expect(throws: CryptoError.self) { try P256Backend.importPublic(der: full + [0x00]) }
        #expect(throws: CryptoError.self) { try P256Backend.importPublic(der: Array(full.dropLast())) }
    }

    /// Keys generated by OpenSSL skip the import checks; they must still be full, valid keys.
    @Test func generatedKeysPassTheImportChecks() throws {
        for _ in 0..<4 {
            let key = try ECP256.KeyAgreement.PrivateKey()
            let reimported = try ECP256.KeyAgreement.PrivateKey(derRepresentation: key.derRepresentation)
            #expect(reimported.publicKey == key.publicKey)
            #expect(try ECP256.KeyAgreement.PublicKey(derRepresentation: key.publicKey.derRepresentation) == key.publicKey)
            #expect(key.publicKey.pemRepresentation.hasPrefix("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"))
        }
    }

    @Test func privateScalarsOutOfRangeAreRefused() throws {
        let order = AsymTestSupport.bytes(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        var orderMinusOne = order
        orderMinusOne[31] -= 1
        #expect(throws: Never.self) { try ECP256.KeyAgreement.PrivateKey(rawRepresentation: orderMinusOne) }
        #expect(throws: Never.self) { try ECP256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1]) }
        for bad in [order, [UInt8](repeating: 0xFF, count: 32), [UInt8](repeating: 0, count: 32), [UInt8](repeating: 1, count: 31), [UInt8](repeating: 1, count: 33)] {
            #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PrivateKey(rawRepresentation: bad) }
        }
        // A SEC1 key whose public point does not belong to its scalar.
        let fixtures = try AsymFixtures.shared.get()
        var sec1 = try fixtures.bytes("p256.sec1.der")
        sec1[sec1.count - 1] ^= 0x01
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try ECP256.KeyAgreement.PrivateKey(derRepresentation: sec1) }
    }

    @Test func generatedKeysDiffer() throws {
        let a = try ECP256.KeyAgreement.PrivateKey()
        let b = try ECP256.KeyAgreement.PrivateKey()
        #expect(a.rawRepresentation != b.rawRepresentation)
        #expect(try a.sharedSecretFromKeyAgreement(with: b.publicKey) == b.sharedSecretFromKeyAgreement(with: a.publicKey))
        #expect(try a.sharedSecretFromKeyAgreement(with: b.publicKey) != a.sharedSecretFromKeyAgreement(with: a.publicKey))
        #expect(try ECP256.KeyAgreement.PrivateKey(pemRepresentation: a.pemRepresentation).rawRepresentation == a.rawRepresentation)
    }
}
