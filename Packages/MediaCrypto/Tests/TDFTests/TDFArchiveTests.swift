import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import Testing
import MediaDRMZIP
@testable import MediaDRMTDF

@Suite("Standard TDF archive: write, read, tamper")
struct TDFArchiveTests {
    static let segment = 1024
    // Empty, short, one byte short of a segment, exactly one, one over, many exact, many with a partial tail.
    static let sizes = [0, 1, segment - 1, segment, segment + 1, segment * 4, segment * 4 + 333]

    @Test("RSA round trip", arguments: sizes)
    func rsaRoundTrip(size: Int) throws {
        let plaintext = pattern(size)
        let archive = try TDF.encrypt(plaintext, options: options(.rsa(TestKeys.rsa.publicKey)))
        let reader = try TDFArchiveReader(data: archive)
        let segments = reader.manifest.encryptionInformation.integrityInformation.segments
        #expect(segments.count == max(1, (size + Self.segment - 1) / Self.segment))
        #expect(segments.last?.segmentSize == Int64(size == 0 ? 0 : (size - 1) % Self.segment + 1))
        #expect(reader.manifest.encryptionInformation.keyAccess.first?.type == .wrapped)
        let key = try reader.payloadKey(unwrapWith: .rsa(TestKeys.rsa))
        #expect(try reader.decrypt(payloadKey: key) == plaintext)
    }

    @Test("EC round trip", arguments: sizes)
    func ecRoundTrip(size: Int) throws {
        let plaintext = pattern(size, seed: 3)
        let archive = try TDF.encrypt(plaintext, options: options(.ec(TestKeys.ec.publicKey)))
        let reader = try TDFArchiveReader(data: archive)
        let access = try #require(reader.manifest.encryptionInformation.keyAccess.first)
        #expect(access.type == .ecWrapped)
        #expect(access.ephemeralPublicKey?.hasPrefix("-----BEGIN PUBLIC KEY-----") == true)
        #expect(try TDF.decrypt(archive, unwrapWith: .ec(TestKeys.ec)) == plaintext)
    }

    @Test("manifest shape matches what OpenTDF 4.3.0 writers emit")
    func manifestShape() throws {
        let archive = try TDF.encrypt(pattern(3000), options: options(.rsa(TestKeys.rsa.publicKey), mimeType: "video/mp4"))
        let zip = try ZIPReader(source: ZIPMemorySource(archive))
        #expect(zip.entries.map(\.name) == ["0.payload", "0.manifest.json"])
        let reader = try TDFArchiveReader(data: archive)
        let manifest = reader.manifest
        #expect(manifest.schemaVersion == "4.3.0")
        #expect(manifest.payload == .init(type: "reference", url: "0.payload", protocol: "zip", mimeType: "video/mp4", isEncrypted: true))
        #expect(reader.mimeType == "video/mp4")
        let info = manifest.encryptionInformation
        #expect(info.type == "split")
        #expect(info.method.algorithm == "AES-256-GCM")
        #expect(info.method.isStreamable)
        #expect(info.integrityInformation.rootSignature.alg == "HS256")
        #expect(info.integrityInformation.segmentHashAlg == "GMAC")
        #expect(info.integrityInformation.segmentSizeDefault == 1024)
        #expect(info.integrityInformation.encryptedSegmentSizeDefault == 1052)
        #expect(info.keyAccess.first?.kid == "r1")
        #expect(info.keyAccess.first?.url == "https://kas.example.com")
        #expect(info.keyAccess.first?.protocol == "kas")
        #expect(reader.policy.body.dataAttributes == [.init(attribute: "https://example.com/attr/tier/value/gold")])
        #expect(Base64.encode(reader.manifestData) == Base64.encode(try TDFParts(archive: archive).manifest))
    }

    /// Recomputes every integrity value with the openssl CLI and checks the forms TDF 4.3.0
    /// writers use: GMAC hash = base64(raw tag), root = base64(raw HMAC(key, raw tags)), policy
    /// binding = base64(hex(HMAC(key, policy base64))); the key unwrapped by openssl pkeyutl.
    @Test("integrity values and RSA wrap agree with openssl")
    func opensslCrossCheck() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("kas.pem")
        try Data(TestKeys.rsa.pemRepresentation.utf8).write(to: keyFile)

        let plaintext = pattern(2500)
        let archive = try TDF.encrypt(plaintext, options: options(.rsa(TestKeys.rsa.publicKey)))
        let parts = try TDFParts(archive: archive)
        let manifest = try TDFManifest(parsing: parts.manifest)
        let access = try #require(manifest.encryptionInformation.keyAccess.first)
        let key = try openssl(["pkeyutl", "-decrypt", "-inkey", keyFile.path, "-pkeyopt", "rsa_padding_mode:oaep",
                               "-pkeyopt", "rsa_oaep_md:sha1", "-pkeyopt", "rsa_mgf1_md:sha1"],
                              input: try Base64.decode(access.wrappedKey))
        #expect(key.count == 32)
        let hexKey = Hex.encode(key)
        func hmac(_ message: Data) throws -> Data {
            try openssl(["mac", "-digest", "SHA256", "-macopt", "hexkey:\(hexKey)", "-binary", "HMAC"], input: message)
        }
        let policy = manifest.encryptionInformation.policy
        let binding = try Hex.encode(hmac(Data(policy.utf8)))
        #expect(access.policyBinding == .object(alg: "HS256", hash: Base64.encode(Data(binding.utf8))))

        var offset = 0
        var tags = Data()
        for segment in manifest.encryptionInformation.integrityInformation.segments {
            let encrypted = parts.payload.subdata(in: offset..<(offset + Int(segment.encryptedSegmentSize)))
            offset += encrypted.count
            let tag = encrypted.suffix(16)
            #expect(segment.hash == Base64.encode(tag))
            tags.append(tag)
        }
        #expect(offset == parts.payload.count)
        #expect(manifest.encryptionInformation.integrityInformation.rootSignature.sig == Base64.encode(try hmac(tags)))
    }

    @Test("file round trip with the default 2 MiB segments and the temporary output renamed")
    func fileRoundTrip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("clear.bin")
        let sealed = directory.appendingPathComponent("clear.bin.tdf")
        let output = directory.appendingPathComponent("out.bin")
        let plaintext = pattern(5 * 1024 * 1024 + 17)
        try plaintext.write(to: input)
        let manifest = try TDF.encrypt(input: input, output: sealed,
                                       options: options(.rsa(TestKeys.rsa.publicKey), segmentSize: TDFArchive.defaultSegmentSize))
        #expect(manifest.encryptionInformation.integrityInformation.segments.count == 3)
        try TDF.decrypt(input: sealed, output: output, unwrapWith: .rsa(TestKeys.rsa))
        #expect(try Data(contentsOf: output) == plaintext)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["clear.bin", "clear.bin.tdf", "out.bin"])
    }

    @Test("a refused decrypt leaves neither the output nor a temporary file")
    func failedFileDecryptLeavesNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var parts = try TDFParts(archive: TDF.encrypt(pattern(5000), options: options(.rsa(TestKeys.rsa.publicKey))))
        parts.payload[parts.payload.count - 20] ^= 0x01 // last segment: earlier ones decrypt first
        let sealed = directory.appendingPathComponent("a.tdf")
        try parts.archive().write(to: sealed)
        let output = directory.appendingPathComponent("out.bin")
        #expect(throws: TDFError(.integrityFailure, "")) {
            try TDF.decrypt(input: sealed, output: output, unwrapWith: .rsa(TestKeys.rsa))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.tdf"])
    }

    // MARK: Tampering

    private func sealed(_ size: Int = 4096, key: KASPublicKey = .rsa(TestKeys.rsa.publicKey)) throws -> TDFParts {
        try TDFParts(archive: TDF.encrypt(pattern(size), options: options(key)))
    }

    private func expectRefused(_ parts: TDFParts, _ code: TDFError.Code, with key: KASPrivateKey = .rsa(TestKeys.rsa)) throws {
        let archive = try parts.archive()
        #expect(throws: TDFError(code, "")) { try TDF.decrypt(archive, unwrapWith: key) }
    }

    @Test("a flipped payload byte is refused", arguments: [0, 11, 12, 500, 1051, 1052, 4207])
    func flippedPayloadByte(position: Int) throws {
        var parts = try sealed()
        parts.payload[position] ^= 0x80
        try expectRefused(parts, .integrityFailure)
    }

    @Test("swapped segments are refused")
    func swappedSegments() throws {
        var parts = try sealed()
        let first = parts.payload.subdata(in: 0..<1052)
        let second = parts.payload.subdata(in: 1052..<2104)
        parts.payload.replaceSubrange(0..<1052, with: second)
        parts.payload.replaceSubrange(1052..<2104, with: first)
        try expectRefused(parts, .integrityFailure)
    }

    @Test("swapped segment hashes are refused by the root signature")
    func swappedSegmentHashes() throws {
        var parts = try sealed()
        try parts.editManifest { manifest in
            manifest.encryptionInformation.integrityInformation.segments.swapAt(0, 1)
        }
        try expectRefused(parts, .integrityFailure)
    }

    @Test("an altered policy is refused by the binding")
    func alteredPolicy() throws {
        var parts = try sealed()
        try parts.editManifest { manifest in
            var policy = try TDFPolicy(base64: manifest.encryptionInformation.policy)
            policy.body.dataAttributes = [.init(attribute: "https://example.com/attr/tier/value/free")]
            manifest.encryptionInformation.policy = policy.base64
        }
        try expectRefused(parts, .bindingMismatch)
    }

    @Test("an altered policy binding is refused", arguments: [KASPublicKey.rsa(TestKeys.rsa.publicKey), .ec(TestKeys.ec.publicKey)])
    func alteredBinding(key: KASPublicKey) throws {
        var parts = try sealed(key: key)
        try parts.editManifest { manifest in
            let other = TDFBinding.policyBinding(policyBase64: manifest.encryptionInformation.policy,
                                                 key: SecretKey(data: Data(repeating: 1, count: 32)), form: .hex)
            manifest.encryptionInformation.keyAccess[0].policyBinding = .object(alg: "HS256", hash: other)
        }
        let privateKey: KASPrivateKey = if case .rsa = key { .rsa(TestKeys.rsa) } else { .ec(TestKeys.ec) }
        try expectRefused(parts, .bindingMismatch, with: privateKey)
    }

    @Test("an altered root signature is refused")
    func alteredRootSignature() throws {
        var parts = try sealed()
        try parts.editManifest { manifest in
            var sig = try Base64.decode(manifest.encryptionInformation.integrityInformation.rootSignature.sig)
            sig[5] ^= 0x01
            manifest.encryptionInformation.integrityInformation.rootSignature.sig = Base64.encode(sig)
        }
        try expectRefused(parts, .integrityFailure)
    }

    @Test("the wrong private key is refused")
    func wrongKey() throws {
        try expectRefused(try sealed(), .keyUnwrapFailure, with: .rsa(TestKeys.otherRSA))
        try expectRefused(try sealed(key: .ec(TestKeys.ec.publicKey)), .keyUnwrapFailure, with: .ec(TestKeys.otherEC))
        try expectRefused(try sealed(), .keyUnwrapFailure, with: .ec(TestKeys.ec))
    }

    @Test("a truncated payload is refused before any segment is read")
    func truncatedPayload() throws {
        var parts = try sealed()
        parts.payload.removeLast(1052)
        let archive = try parts.archive()
        #expect(throws: TDFError(.integrityFailure, "")) { try TDFArchiveReader(data: archive) }
    }

    @Test("segment sizes above the limit are refused when opening")
    func segmentLimit() throws {
        let archive = try TDF.encrypt(pattern(5000), options: options(.rsa(TestKeys.rsa.publicKey), segmentSize: 4096))
        var limits = TDFLimits()
        limits.maxSegmentSize = 2048
        #expect(throws: TDFError(.limitExceeded, "")) { try TDFArchiveReader(data: archive, limits: limits) }
        limits = TDFLimits()
        limits.maxPayloadBytes = 4999
        #expect(throws: TDFError(.limitExceeded, "")) { try TDFArchiveReader(data: archive, limits: limits) }
        limits = TDFLimits()
        limits.maxSegments = 1
        #expect(throws: TDFError(.limitExceeded, "")) { try TDFArchiveReader(data: archive, limits: limits) }
    }

    @Test("writer segment size is range checked", arguments: [0, -1, 64 * 1024 * 1024 + 1])
    func writerSegmentRange(size: Int) throws {
        #expect(throws: TDFError(.invalidArgument, "")) {
            try TDF.encrypt(Data([1]), options: options(.rsa(TestKeys.rsa.publicKey), segmentSize: size))
        }
    }

    // MARK: Other writers' forms

    /// Legacy writers hex-encode segment hashes and the root signature (over the hex texts).
    @Test("legacy hex segment hashes and root signature are accepted")
    func legacyHexIntegrity() throws {
        let plaintext = pattern(3000)
        var parts = try sealed(3000)
        let key = try TDFArchiveReader(data: parts.archive()).payloadKey(unwrapWith: .rsa(TestKeys.rsa))
        try parts.editManifest { manifest in
            var aggregate = Data()
            for index in manifest.encryptionInformation.integrityInformation.segments.indices {
                let raw = try Base64.decode(manifest.encryptionInformation.integrityInformation.segments[index].hash)
                let hexText = Data(Hex.encode(raw).utf8)
                aggregate.append(hexText)
                manifest.encryptionInformation.integrityInformation.segments[index].hash = Base64.encode(hexText)
            }
            manifest.encryptionInformation.integrityInformation.rootSignature.sig =
                Base64.encode(Data(Hex.encode(HMACSHA256.authenticationCode(aggregate, key: key)).utf8))
            manifest.schemaVersion = nil
        }
        #expect(try TDF.decrypt(parts.archive(), unwrapWith: .rsa(TestKeys.rsa)) == plaintext)
    }

    @Test("raw-form policy bindings verify too")
    func rawBinding() throws {
        let archive = try TDF.encrypt(pattern(10), options: options(.rsa(TestKeys.rsa.publicKey), bindingForm: .raw))
        let hash = try #require(TDFArchiveReader(data: archive).manifest.encryptionInformation.keyAccess.first).policyBinding.hash
        #expect(try Base64.decode(hash).count == 32)
        #expect(try TDF.decrypt(archive, unwrapWith: .rsa(TestKeys.rsa)) == pattern(10))
    }

    @Test("a bare-string policy binding is accepted")
    func stringBinding() throws {
        var parts = try sealed(100)
        try parts.editManifest { manifest in
            manifest.encryptionInformation.keyAccess[0].policyBinding = .string(manifest.encryptionInformation.keyAccess[0].policyBinding.hash)
        }
        #expect(try TDF.decrypt(parts.archive(), unwrapWith: .rsa(TestKeys.rsa)) == pattern(100))
    }

    @Test("split keys: one key access per sid, XORed")
    func splitKeys() throws {
        var parts = try sealed(100)
        let key = try TDFArchiveReader(data: parts.archive()).payloadKey(unwrapWith: .rsa(TestKeys.rsa))
        let shareA = SecretKey(data: pattern(32, seed: 9))
        let shareB = key.withUnsafeBytes { keyBytes in
            SecretKey(data: zip(keyBytes, pattern(32, seed: 9)).map { $0 ^ $1 })
        }
        try parts.editManifest { manifest in
            let policy = manifest.encryptionInformation.policy
            manifest.encryptionInformation.keyAccess = [
                try KeyAccessObject.wrapping(shareA, to: .rsa(TestKeys.rsa.publicKey), kasURL: "https://a", sid: "s-0", policyBase64: policy),
                try KeyAccessObject.wrapping(shareB, to: .ec(TestKeys.ec.publicKey), kasURL: "https://b", sid: "s-1", policyBase64: policy),
                try KeyAccessObject.wrapping(shareB, to: .rsa(TestKeys.rsa.publicKey), kasURL: "https://c", sid: "s-1", policyBase64: policy),
            ]
        }
        #expect(try TDF.decrypt(parts.archive(), unwrapWith: .rsa(TestKeys.rsa)) == pattern(100))
    }
}

@Suite("Standard TDF archive: container variants")
struct TDFContainerTests {
    @Test("a deflated payload entry (not what SDKs write) still decrypts")
    func deflatedPayload() throws {
        let plaintext = pattern(5000)
        let parts = try TDFParts(archive: TDF.encrypt(plaintext, options: options(.rsa(TestKeys.rsa.publicKey))))
        let sink = ZIPMemorySink()
        let zip = try ZIPWriter(sink: sink, layout: .standard)
        try zip.addEntry(name: "0.payload", data: parts.payload, method: .deflate)
        try zip.addEntry(name: "0.manifest.json", data: parts.manifest, method: .deflate)
        _ = try zip.finish()
        #expect(try TDF.decrypt(sink.data, unwrapWith: .rsa(TestKeys.rsa)) == plaintext)
    }

    @Test("archives without a manifest or payload entry are refused")
    func missingEntries() throws {
        let parts = try TDFParts(archive: TDF.encrypt(pattern(10), options: options(.rsa(TestKeys.rsa.publicKey))))
        for (name, data) in [("0.payload", parts.payload), ("0.manifest.json", parts.manifest)] {
            let sink = ZIPMemorySink()
            let zip = try ZIPWriter(sink: sink, layout: .standard)
            try zip.addEntry(name: name, data: data)
            _ = try zip.finish()
            #expect(throws: TDFError(.malformedArchive, "")) { try TDFArchiveReader(data: sink.data) }
        }
        #expect(throws: TDFError(.malformedArchive, "")) { try TDFArchiveReader(data: Data("not a zip".utf8)) }
    }

    @Test("every prefix of an archive fails with a typed error")
    func archiveTruncation() throws {
        let archive = try TDF.encrypt(pattern(100), options: options(.rsa(TestKeys.rsa.publicKey)))
        for length in 0..<archive.count {
            #expect(throws: TDFError.self) { try TDF.decrypt(archive.prefix(length), unwrapWith: .rsa(TestKeys.rsa)) }
        }
    }
}
