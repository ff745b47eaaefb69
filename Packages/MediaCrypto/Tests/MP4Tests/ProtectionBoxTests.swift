import Foundation
import Testing
@testable import MediaDRMMP4

@Suite struct ProtectionBoxTests {
    static let kid: [UInt8] = Array(0x10 ..< 0x20)
    static let iv: [UInt8] = Array(0xA0 ..< 0xB0)

    static func sinf(format: FourCC) -> ProtectionSchemeInfoBox {
        let tenc = TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: kid, defaultConstantIV: iv,
                                      defaultCryptByteBlock: 1, defaultSkipByteBlock: 9)
        return ProtectionSchemeInfoBox(children: [OriginalFormatBox(dataFormat: format), SchemeTypeBox(schemeType: "cbcs"),
                                                  SchemeInformationBox(children: [tenc])])
    }

    @Test func originalFormatAndSchemeType() throws {
        #expect(try roundTrip(OriginalFormatBox(dataFormat: "avc1")) == box("frma", Array("avc1".utf8)))
        #expect(try roundTrip(SchemeTypeBox(schemeType: "cbcs")) == fullBox("schm", version: 0, flags: 0, Array("cbcs".utf8) + be32(0x10000)))
        var withURI = SchemeTypeBox(schemeType: "cenc")
        withURI.schemeURI = Array("urn:x\0".utf8)
        let bytes = try roundTrip(withURI)
        #expect(bytes[11] == 1)
    }

    @Test func trackEncryptionVersion1WithConstantIV() throws {
        let tenc = TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: Self.kid, defaultConstantIV: Self.iv,
                                      defaultCryptByteBlock: 1, defaultSkipByteBlock: 9)
        let bytes = try roundTrip(tenc)
        #expect(bytes == fullBox("tenc", version: 1, flags: 0, [0x00, 0x19, 0x01, 0x00] + Self.kid + [16] + Self.iv))
        let parsed = try TrackEncryptionBox(parsing: bytes)
        #expect(parsed.defaultCryptByteBlock == 1 && parsed.defaultSkipByteBlock == 9)
        #expect(parsed.defaultConstantIV == Self.iv)
        checkEveryPrefix(of: bytes, as: TrackEncryptionBox.self)
    }

    @Test func trackEncryptionVersion0WithPerSampleIV() throws {
        let tenc = TrackEncryptionBox(defaultPerSampleIVSize: 8, defaultKID: Self.kid)
        let bytes = try roundTrip(tenc)
        #expect(bytes == fullBox("tenc", version: 0, flags: 0, [0x00, 0x00, 0x01, 0x08] + Self.kid))
        // Version 0 with a pattern is normalised to version 1.
        var patterned = tenc
        patterned.defaultCryptByteBlock = 1
        #expect(try patterned.serializedBytes()[8] == 1)
        // Unprotected: no IV at all.
        try roundTrip(TrackEncryptionBox(defaultIsProtected: 0, defaultPerSampleIVSize: 0, defaultKID: Self.kid))
        // Version 1, 16-byte IV, no pattern, 8-byte constant IV form.
        var v1 = TrackEncryptionBox(defaultPerSampleIVSize: 16, defaultKID: Self.kid)
        v1.version = 1
        try roundTrip(v1)
        try roundTrip(TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: Self.kid, defaultConstantIV: Array(Self.iv[0 ..< 8])))
    }

    @Test(arguments: [UInt8(1), 4, 7, 12, 17, 255])
    func trackEncryptionBadIVSize(size: UInt8) {
        expectFailure(fullBox("tenc", version: 0, flags: 0, [0, 0, 1, size] + Self.kid), as: TrackEncryptionBox.self, .invalidField)
        expectWriteFailure(TrackEncryptionBox(defaultPerSampleIVSize: size, defaultKID: Self.kid), .invalidField)
    }

    @Test func trackEncryptionMalformed() {
        // Constant IV size not 8 or 16.
        expectFailure(fullBox("tenc", version: 1, flags: 0, [0, 0x19, 1, 0] + Self.kid + [5, 1, 2, 3, 4, 5]), as: TrackEncryptionBox.self, .invalidField)
        // Constant IV shorter than announced.
        expectFailure(fullBox("tenc", version: 1, flags: 0, [0, 0x19, 1, 0] + Self.kid + [16, 1, 2]), as: TrackEncryptionBox.self, .truncated)
        // isProtected neither 0 nor 1.
        expectFailure(fullBox("tenc", version: 0, flags: 0, [0, 0, 2, 8] + Self.kid), as: TrackEncryptionBox.self, .invalidField)
        // Not protected yet an IV size.
        expectFailure(fullBox("tenc", version: 0, flags: 0, [0, 0, 0, 8] + Self.kid), as: TrackEncryptionBox.self, .invalidField)
        // A constant IV after a per-sample IV size is a stray byte.
        expectFailure(fullBox("tenc", version: 0, flags: 0, [0, 0, 1, 8] + Self.kid + [8]), as: TrackEncryptionBox.self, .invalidSize)
        // KID cut short.
        expectFailure(fullBox("tenc", version: 0, flags: 0, [0, 0, 1, 8] + Self.kid.prefix(10)), as: TrackEncryptionBox.self, .truncated)
        expectFailure(fullBox("tenc", version: 2, flags: 0, [0, 0, 1, 8] + Self.kid), as: TrackEncryptionBox.self, .unsupportedVersion)
        // Writer side: missing constant IV, stray constant IV, short KID, pattern over 4 bits.
        expectWriteFailure(TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: Self.kid), .invalidField)
        expectWriteFailure(TrackEncryptionBox(defaultPerSampleIVSize: 8, defaultKID: Self.kid, defaultConstantIV: Self.iv), .invalidField)
        expectWriteFailure(TrackEncryptionBox(defaultPerSampleIVSize: 8, defaultKID: [1, 2]), .invalidField)
        expectWriteFailure(TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: Self.kid, defaultConstantIV: Array(Self.iv[0 ..< 5])), .invalidField)
        expectWriteFailure(TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: Self.kid, defaultConstantIV: Self.iv, defaultCryptByteBlock: 16), .invalidField)
    }

    @Test func protectionSchemeInfo() throws {
        let sinf = Self.sinf(format: "avc1")
        let bytes = try roundTrip(sinf)
        let parsed = try ProtectionSchemeInfoBox(parsing: bytes)
        #expect(parsed.schemeType?.schemeType == "cbcs")
        #expect(parsed.schemeInformation?.trackEncryption?.defaultKID == Self.kid)
        checkEveryPrefix(of: bytes, as: ProtectionSchemeInfoBox.self)
        expectWriteFailure(ProtectionSchemeInfoBox(children: [SchemeTypeBox(schemeType: "cbcs")]), .missingBox)
    }

    static let fairPlaySystemID: [UInt8] = hex("94ce86fb07ff4f43adb893d2fa968ca2")
    static let commonSystemID: [UInt8] = hex("1077efecc0b24d02ace33c1e52e2fb4b")

    @Test func protectionSystemHeaderVersion0And1() throws {
        let v0 = ProtectionSystemSpecificHeaderBox(systemID: Self.fairPlaySystemID, data: [1, 2, 3])
        #expect(try roundTrip(v0) == fullBox("pssh", version: 0, flags: 0, Self.fairPlaySystemID + be32(3) + [1, 2, 3]))
        // The W3C common system box: version 1, key IDs, no data.
        let common = ProtectionSystemSpecificHeaderBox(systemID: Self.commonSystemID, keyIDs: [Self.kid, Array(Self.kid.reversed())], data: [])
        let bytes = try roundTrip(common)
        #expect(bytes == fullBox("pssh", version: 1, flags: 0, Self.commonSystemID + be32(2) + Self.kid + Self.kid.reversed() + be32(0)))
        checkEveryPrefix(of: bytes, as: ProtectionSystemSpecificHeaderBox.self)
        expectWriteFailure(ProtectionSystemSpecificHeaderBox(systemID: [1], data: []), .invalidField)
        expectWriteFailure(ProtectionSystemSpecificHeaderBox(systemID: Self.commonSystemID, keyIDs: [[1, 2]], data: []), .invalidField)
    }
}
