/// `ftyp` (ISO/IEC 14496-12 §4.3) and `styp` (§8.16.2), which share a layout.
public struct FileTypeBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["ftyp", "styp"]
    /// `ftyp` or `styp`.
    public var type: FourCC
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]
    public var boxType: FourCC { type }

    public init() { self.init(majorBrand: FourCC(rawValue: 0), minorVersion: 0, compatibleBrands: []) }

    public init(type: FourCC = "ftyp", majorBrand: FourCC, minorVersion: UInt32, compatibleBrands: [FourCC]) {
        self.type = type
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        c.headerType(&type)
        if c.isWriting, !Self.supportedTypes.contains(type) { throw c.invalidField("type", "must be 'ftyp' or 'styp'") }
        try c.fourCC(&majorBrand)
        try c.uint32(&minorVersion)
        if c.isReading, c.bytesLeft % 4 != 0 { throw .invalidSize(type, "compatible_brands is not a whole number of brands") }
        let count = c.isReading ? c.bytesLeft / 4 : compatibleBrands.count
        try c.elements(&compatibleBrands, count: count, minimumSize: 4,
                       field: "compatible_brands", make: { FourCC(rawValue: 0) }) { (c, brand) throws(MP4Error) in
            try c.fourCC(&brand)
        }
    }
}
