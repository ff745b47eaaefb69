// Protection boxes: `frma`, `schm` (ISO/IEC 14496-12 §8.12), `tenc` and `pssh` (ISO/IEC 23001-7).

/// `frma` (§8.12.2): the sample entry type before protection (`avc1`, `mp4a`).
public struct OriginalFormatBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["frma"]
    public var boxType: FourCC { "frma" }
    public var dataFormat: FourCC = "avc1"

    public init() {}
    public init(dataFormat: FourCC) { self.dataFormat = dataFormat }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fourCC(&dataFormat)
    }
}

/// `schm` (§8.12.5): `cenc`, `cbcs`, ... Flag 1 means a scheme URI follows.
public struct SchemeTypeBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["schm"]
    public var boxType: FourCC { "schm" }
    public var version: UInt8 = 0
    public var schemeType: FourCC = "cbcs"
    /// 0x00010000 for `cenc` and `cbcs` version 1.0.
    public var schemeVersion: UInt32 = 0x0001_0000
    /// The scheme URI bytes as stored (UTF-8 with its NUL); present exactly when flag 1 is set.
    public var schemeURI: [UInt8]?

    public init() {}
    public init(schemeType: FourCC, schemeVersion: UInt32 = 0x0001_0000) {
        self.schemeType = schemeType
        self.schemeVersion = schemeVersion
    }

    /// Flag 1 when a scheme URI is present.
    public var flags: UInt32 { schemeURI == nil ? 0 : 1 }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        var flags = flags
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        guard flags & ~1 == 0 else { throw c.invalidField("flags", "unknown flag bits") }
        try c.fourCC(&schemeType)
        try c.uint32(&schemeVersion)
        if flags & 1 != 0 {
            var uri = schemeURI ?? []
            try c.remainingBytes(&uri)
            schemeURI = uri
        } else {
            schemeURI = nil
        }
    }
}

/// `tenc` (ISO/IEC 23001-7 §8.2). Version 1 carries the pattern (`cbcs`, `cens`); version 1 is
/// chosen on write when a pattern is set.
public struct TrackEncryptionBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["tenc"]
    public var boxType: FourCC { "tenc" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    /// Encrypted 16-byte blocks per pattern (4 bits; version 1 only).
    public var defaultCryptByteBlock: UInt8 = 0
    /// Clear 16-byte blocks per pattern (4 bits; version 1 only).
    public var defaultSkipByteBlock: UInt8 = 0
    /// 1 when samples are protected by default, 0 when clear.
    public var defaultIsProtected: UInt8 = 1
    /// 0, 8 or 16; 0 with protection means a constant IV.
    public var defaultPerSampleIVSize: UInt8 = 0
    public var defaultKID: [UInt8] = Array(repeating: 0, count: 16)
    /// 8 or 16 bytes when protected with `defaultPerSampleIVSize` 0, else nil.
    public var defaultConstantIV: [UInt8]?

    public init() {}

    public init(defaultIsProtected: UInt8 = 1, defaultPerSampleIVSize: UInt8, defaultKID: [UInt8],
                defaultConstantIV: [UInt8]? = nil, defaultCryptByteBlock: UInt8 = 0, defaultSkipByteBlock: UInt8 = 0) {
        self.defaultIsProtected = defaultIsProtected
        self.defaultPerSampleIVSize = defaultPerSampleIVSize
        self.defaultKID = defaultKID
        self.defaultConstantIV = defaultConstantIV
        self.defaultCryptByteBlock = defaultCryptByteBlock
        self.defaultSkipByteBlock = defaultSkipByteBlock
        if defaultCryptByteBlock != 0 || defaultSkipByteBlock != 0 { version = 1 }
    }

    var needsConstantIV: Bool { defaultIsProtected == 1 && defaultPerSampleIVSize == 0 }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting {
            guard defaultCryptByteBlock < 16 else { throw c.invalidField("default_crypt_byte_block", "4 bits") }
            guard defaultSkipByteBlock < 16 else { throw c.invalidField("default_skip_byte_block", "4 bits") }
            if defaultCryptByteBlock != 0 || defaultSkipByteBlock != 0 { version = max(version, 1) }
            if needsConstantIV == (defaultConstantIV == nil) {
                throw c.invalidField("default_constant_IV", "present exactly when protected with a per-sample IV size of 0")
            }
            try validate(c)
        }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        try c.reserved(1)
        if version == 0 {
            try c.reserved(1)
        } else {
            var pattern = defaultCryptByteBlock << 4 | defaultSkipByteBlock
            try c.uint8(&pattern)
            defaultCryptByteBlock = pattern >> 4
            defaultSkipByteBlock = pattern & 0x0F
        }
        try c.uint8(&defaultIsProtected)
        try c.uint8(&defaultPerSampleIVSize)
        try c.bytes(&defaultKID, count: 16, field: "default_KID")
        if c.isReading { try validate(c) }
        if needsConstantIV {
            var iv = defaultConstantIV ?? []
            var size = UInt8(truncatingIfNeeded: iv.count)
            try c.uint8(&size)
            guard size == 8 || size == 16 else { throw c.invalidField("default_constant_IV_size", "must be 8 or 16") }
            try c.bytes(&iv, count: Int(size), field: "default_constant_IV")
            defaultConstantIV = iv
        }
    }

    private func validate(_ c: BoxCoder) throws(MP4Error) {
        guard defaultIsProtected <= 1 else { throw c.invalidField("default_isProtected", "must be 0 or 1") }
        guard [0, 8, 16].contains(defaultPerSampleIVSize) else {
            throw c.invalidField("default_Per_Sample_IV_Size", "must be 0, 8 or 16")
        }
        if defaultIsProtected == 0, defaultPerSampleIVSize != 0 {
            throw c.invalidField("default_Per_Sample_IV_Size", "must be 0 when not protected")
        }
    }
}

/// `pssh` (ISO/IEC 23001-7 §8.1). Version 1 lists key IDs; version 1 is chosen on write when
/// there are any.
public struct ProtectionSystemSpecificHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["pssh"]
    public var boxType: FourCC { "pssh" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    /// 16 bytes.
    public var systemID: [UInt8] = Array(repeating: 0, count: 16)
    /// 16 bytes each (version 1).
    public var keyIDs: [[UInt8]] = []
    public var data: [UInt8] = []

    public init() {}
    public init(systemID: [UInt8], keyIDs: [[UInt8]] = [], data: [UInt8]) {
        self.systemID = systemID
        self.keyIDs = keyIDs
        self.data = data
        version = keyIDs.isEmpty ? 0 : 1
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting, !keyIDs.isEmpty { version = max(version, 1) }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        try c.bytes(&systemID, count: 16, field: "SystemID")
        if version == 1 {
            try c.entries(&keyIDs, minimumSize: 16, field: "KID_count", make: { [] }) { (c, kid) throws(MP4Error) in
                try c.bytes(&kid, count: 16, field: "KID")
            }
        }
        var n = data.count
        try c.count(&n, width: 4, minimumSize: 1, field: "DataSize")
        try c.bytes(&data, count: n, field: "Data")
    }
}
