// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
// Sample auxiliary information: `senc` (ISO/IEC 23001-7 §7.2), `saiz` and `saio`
// (ISO/IEC 14496-12 §8.7.8, §8.7.9).

/// `senc`. Its IV size is not in the box: it comes from the track's `tenc` (via
/// `DecodingOptions`), or, when no one says, from the one size of 0, 8 or 16 that fills the box.
public struct SampleEncryptionBox: MP4Box {
    public struct Subsample: Sendable, Equatable {
        public var bytesOfClearData: UInt16
        public var bytesOfProtectedData: UInt32
        public init(bytesOfClearData: UInt16, bytesOfProtectedData: UInt32) {
            self.bytesOfClearData = bytesOfClearData
            self.bytesOfProtectedData = bytesOfProtectedData
        }
    }

    public struct Sample: Sendable, Equatable {
        /// `perSampleIVSize` bytes (empty with a constant IV).
        public var initializationVector: [UInt8]
        /// Empty unless the box uses subsamples.
        public var subsamples: [Subsample]
        public init(initializationVector: [UInt8] = [], subsamples: [Subsample] = []) {
            self.initializationVector = initializationVector
            self.subsamples = subsamples
        }
    }

    public static let supportedTypes: [FourCC] = ["senc"]
    public var boxType: FourCC { "senc" }
    public var version: UInt8 = 0
    /// Flag 0x2: each sample lists its subsamples.
    public var usesSubsamples = false
    /// 0, 8 or 16; not stored in the box.
    public var perSampleIVSize = 0
    public var samples: [Sample] = []

    public init() {}
    public init(perSampleIVSize: Int, usesSubsamples: Bool, samples: [Sample]) {
        self.perSampleIVSize = perSampleIVSize
        self.usesSubsamples = usesSubsamples
        self.samples = samples
    }

    public var flags: UInt32 { usesSubsamples ? 0x2 : 0 }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        var f = flags
        if c.isWriting {
            guard [0, 8, 16].contains(perSampleIVSize) else { throw c.invalidField("Per_Sample_IV_Size", "must be 0, 8 or 16") }
            guard samples.allSatisfy({ $0.initializationVector.count == perSampleIVSize }) else {
                throw c.invalidField("InitializationVector", "must be Per_Sample_IV_Size bytes")
            }
            if !usesSubsamples, samples.contains(where: { !$0.subsamples.isEmpty }) {
                throw c.invalidField("subsample_count", "subsamples need flag 0x2")
            }
        }
        try c.fullBoxHeader(version: &version, flags: &f, supported: 0 ... 0)
        guard f & ~0x2 == 0 else { throw c.invalidField("flags", "unknown flag bits") }
        usesSubsamples = f & 0x2 != 0
        if c.isReading {
            let given = c.contextTrackID.flatMap { c.options.perSampleIVSizes[$0] } ?? c.options.defaultPerSampleIVSize
            if let given {
                guard [0, 8, 16].contains(given) else { throw c.invalidField("Per_Sample_IV_Size", "must be 0, 8 or 16") }
                perSampleIVSize = given
            } else {
                // Try each legal size on a copy; exactly one must fill the box.
                var fits: [(Int, BoxCoder, [Sample])] = []
                for size in [0, 8, 16] {
                    var trial = c
                    var entries: [Sample] = []
                    if (try? Self.describeSamples(&entries, ivSize: size, subsamples: usesSubsamples, &trial)) != nil,
                       trial.bytesLeft == 0 {
                        fits.append((size, trial, entries))
                    }
                }
                // With no samples every size fits and none matters: take the smallest.
                if fits.count > 1, fits.allSatisfy({ $0.2.isEmpty }) { fits.removeLast(fits.count - 1) }
                guard fits.count == 1, let fit = fits.first else {
                    throw c.invalidField("Per_Sample_IV_Size", fits.isEmpty ? "no IV size fits the box"
                                                                             : "ambiguous; give the size from tenc")
                }
                perSampleIVSize = fit.0
                c = fit.1
                samples = fit.2
                return
            }
        }
        try Self.describeSamples(&samples, ivSize: perSampleIVSize, subsamples: usesSubsamples, &c)
    }

    private static func describeSamples(_ samples: inout [Sample], ivSize: Int, subsamples: Bool,
                                         _ c: inout BoxCoder) throws(MP4Error) {
        try c.entries(&samples, minimumSize: ivSize + (subsamples ? 2 : 0), field: "sample_count", make: { Sample() }) {
            (c, s) throws(MP4Error) in
            try c.bytes(&s.initializationVector, count: ivSize, field: "InitializationVector")
            if subsamples {
                var n = s.subsamples.count
                try c.count(&n, width: 2, minimumSize: 6, field: "subsample_count")
                try c.elements(&s.subsamples, count: n, minimumSize: 6, field: "subsample_count",
                               make: { Subsample(bytesOfClearData: 0, bytesOfProtectedData: 0) }) { (c, sub) throws(MP4Error) in
                    try c.uint16(&sub.bytesOfClearData)
                    try c.uint32(&sub.bytesOfProtectedData)
                }
            }
        }
    }
}

/// Flag 1 of `saiz` and `saio`: the aux_info_type and its parameter are present.
public struct AuxiliaryInformationType: Sendable, Equatable {
    public var auxInfoType: FourCC
    public var auxInfoTypeParameter: UInt32
    public init(auxInfoType: FourCC, auxInfoTypeParameter: UInt32 = 0) {
        self.auxInfoType = auxInfoType
        self.auxInfoTypeParameter = auxInfoTypeParameter
    }
}

private func describeAuxInfoType(_ type: inout AuxiliaryInformationType?, flags: UInt32, _ c: inout BoxCoder) throws(MP4Error) {
    guard flags & 1 != 0 else { type = nil; return }
    var value = type ?? AuxiliaryInformationType(auxInfoType: FourCC(rawValue: 0))
    try c.fourCC(&value.auxInfoType)
    try c.uint32(&value.auxInfoTypeParameter)
    type = value
}

/// `saiz`. With a non-zero `defaultSampleInfoSize` every sample has that size and `sampleInfoSizes`
/// is empty; with 0, `sampleInfoSizes` lists each sample and `sampleCount` equals its count.
public struct SampleAuxiliaryInformationSizesBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["saiz"]
    public var boxType: FourCC { "saiz" }
    public var version: UInt8 = 0
    public var auxInfoType: AuxiliaryInformationType?
    public var defaultSampleInfoSize: UInt8 = 0
    public var sampleCount: UInt32 = 0
    public var sampleInfoSizes: [UInt8] = []

    public init() {}
    public init(auxInfoType: AuxiliaryInformationType? = nil, sampleInfoSizes: [UInt8]) {
        self.auxInfoType = auxInfoType
        self.sampleInfoSizes = sampleInfoSizes
        sampleCount = UInt32(clamping: sampleInfoSizes.count)
    }
    public init(auxInfoType: AuxiliaryInformationType? = nil, defaultSampleInfoSize: UInt8, sampleCount: UInt32) {
        self.auxInfoType = auxInfoType
        self.defaultSampleInfoSize = defaultSampleInfoSize
        self.sampleCount = sampleCount
    }

    public var flags: UInt32 { auxInfoType != nil ? 1 : 0 }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting {
            if defaultSampleInfoSize != 0, !sampleInfoSizes.isEmpty {
                throw c.invalidField("sample_info_size", "must be empty with a default size")
            }
            if defaultSampleInfoSize == 0, Int(sampleCount) != sampleInfoSizes.count {
                throw c.invalidField("sample_count", "differs from the entries")
            }
        }
        var f = flags
        try c.fullBoxHeader(version: &version, flags: &f, supported: 0 ... 0)
        guard f & ~1 == 0 else { throw c.invalidField("flags", "unknown flag bits") }
        try describeAuxInfoType(&auxInfoType, flags: f, &c)
        try c.uint8(&defaultSampleInfoSize)
        try c.uint32(&sampleCount)
        if defaultSampleInfoSize == 0 {
            try c.bytes(&sampleInfoSizes, count: Int(sampleCount), field: "sample_info_size")
        }
    }
}

/// `saio`. Version 1 (64-bit offsets) is chosen on write when an offset needs it.
public struct SampleAuxiliaryInformationOffsetsBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["saio"]
    public var boxType: FourCC { "saio" }
    public var version: UInt8 = 0
    public var auxInfoType: AuxiliaryInformationType?
    public var offsets: [UInt64] = []

    public init() {}
    public init(auxInfoType: AuxiliaryInformationType? = nil, offsets: [UInt64]) {
        self.auxInfoType = auxInfoType
        self.offsets = offsets
    }

    public var flags: UInt32 { auxInfoType != nil ? 1 : 0 }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting, offsets.contains(where: { $0 > UInt64(UInt32.max) }) { version = max(version, 1) }
        var f = flags
        try c.fullBoxHeader(version: &version, flags: &f, supported: 0 ... 1)
        guard f & ~1 == 0 else { throw c.invalidField("flags", "unknown flag bits") }
        try describeAuxInfoType(&auxInfoType, flags: f, &c)
        let wide = version == 1
        try c.entries(&offsets, minimumSize: wide ? 8 : 4, make: { 0 }) { (c, o) throws(MP4Error) in
            try c.uint(&o, wide: wide, field: "offset")
        }
    }
}

/// `mdat` (§8.1.1): a header and a reference to where its payload lies; the payload itself is
/// never loaded. Serialising writes the header for `payloadSize` bytes, which the caller appends.
public struct MediaDataBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["mdat"]
    public var boxType: FourCC { "mdat" }
    public var payloadSize: UInt64 = 0
    /// Where the payload starts in the source (reading only).
    public var payloadOffset: UInt64?

    public init() {}
    public init(payloadSize: UInt64) { self.payloadSize = payloadSize }

    /// Two `mdat`s are equal when they announce the same payload size.
    public static func == (lhs: MediaDataBox, rhs: MediaDataBox) -> Bool { lhs.payloadSize == rhs.payloadSize }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.externalPayload(size: &payloadSize, offset: &payloadOffset)
    }

    /// The header bytes for a payload of `payloadSize` bytes (with `largesize` when needed).
    public static func header(payloadSize: UInt64) throws(MP4Error) -> [UInt8] {
        try MediaDataBox(payloadSize: payloadSize).serializedBytes()
    }
}
