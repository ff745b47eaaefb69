// `esds` (ISO/IEC 14496-14 §5.6) and the MPEG-4 Systems descriptors inside it
// (ISO/IEC 14496-1 §7.2.6). Each descriptor remembers how many bytes its length used (writers
// differ: ffmpeg pads every length to 4 bytes), so parsed descriptors re-serialise unchanged.

/// `esds`: a full box holding one ES_Descriptor.
public struct ESDBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["esds"]
    public var boxType: FourCC { "esds" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var descriptor = ESDescriptor()

    public init() {}
    public init(descriptor: ESDescriptor) { self.descriptor = descriptor }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try descriptor.describe(&c)
    }
}

/// ES_Descriptor (tag 3).
public struct ESDescriptor: Sendable, Equatable {
    public var esID: UInt16 = 0
    /// 5 bits.
    public var streamPriority: UInt8 = 0
    public var dependsOnESID: UInt16?
    public var url: [UInt8]?
    public var ocrESID: UInt16?
    public var decoderConfig = DecoderConfigDescriptor()
    public var slConfig = SLConfigDescriptor()
    /// Further descriptors after SLConfigDescriptor, as stored.
    public var trailingDescriptors: [UInt8] = []
    /// Bytes used by this descriptor's length field (1–4).
    public var lengthFieldSize = 1

    public init() {}

    public init(esID: UInt16, decoderConfig: DecoderConfigDescriptor) {
        self.esID = esID
        self.decoderConfig = decoderConfig
    }

    mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.descriptor(tag: 3, lengthFieldSize: &lengthFieldSize) { (c) throws(MP4Error) in
            try c.uint16(&esID)
            if c.isWriting {
                guard streamPriority < 32 else { throw c.invalidField("streamPriority", "5 bits") }
                guard (url?.count ?? 0) <= 255 else { throw c.invalidField("URLstring", "over 255 bytes") }
            }
            var flagsByte = (dependsOnESID != nil ? 0x80 : 0) | (url != nil ? 0x40 : 0) | (ocrESID != nil ? 0x20 : 0) | streamPriority
            try c.uint8(&flagsByte)
            streamPriority = flagsByte & 0x1F
            if flagsByte & 0x80 != 0 {
                var id = dependsOnESID ?? 0
                try c.uint16(&id)
                dependsOnESID = id
            }
            if flagsByte & 0x40 != 0 {
                var text = url ?? []
                var length = UInt8(truncatingIfNeeded: text.count)
                try c.uint8(&length)
                try c.bytes(&text, count: Int(length), field: "URLstring")
                url = text
            }
            if flagsByte & 0x20 != 0 {
                var id = ocrESID ?? 0
                try c.uint16(&id)
                ocrESID = id
            }
            try decoderConfig.describe(&c)
            try slConfig.describe(&c)
            try c.remainingBytes(&trailingDescriptors)
        }
    }
}

/// DecoderConfigDescriptor (tag 4).
public struct DecoderConfigDescriptor: Sendable, Equatable {
    /// 0x40 for MPEG-4 Audio (AAC).
    public var objectTypeIndication: UInt8 = 0x40
    /// 6 bits; 5 is audio.
    public var streamType: UInt8 = 5
    public var upStream = false
    /// 24 bits.
    public var bufferSizeDB: UInt32 = 0
    public var maxBitrate: UInt32 = 0
    public var avgBitrate: UInt32 = 0
    public var decoderSpecificInfo: DecoderSpecificInfo?
    /// Further descriptors (profileLevelIndicationIndexDescriptor), as stored.
    public var trailingDescriptors: [UInt8] = []
    public var lengthFieldSize = 1

    public init() {}

    public init(objectTypeIndication: UInt8 = 0x40, streamType: UInt8 = 5, bufferSizeDB: UInt32, maxBitrate: UInt32,
                avgBitrate: UInt32, decoderSpecificInfo: DecoderSpecificInfo?) {
        self.objectTypeIndication = objectTypeIndication
        self.streamType = streamType
        self.bufferSizeDB = bufferSizeDB
        self.maxBitrate = maxBitrate
        self.avgBitrate = avgBitrate
        self.decoderSpecificInfo = decoderSpecificInfo
    }

    mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.descriptor(tag: 4, lengthFieldSize: &lengthFieldSize) { (c) throws(MP4Error) in
            try c.uint8(&objectTypeIndication)
            if c.isWriting, streamType >= 64 { throw c.invalidField("streamType", "6 bits") }
            var byte = streamType << 2 | (upStream ? 0x02 : 0) | 0x01
            try c.uint8(&byte)
            streamType = byte >> 2
            upStream = byte & 0x02 != 0
            try c.uint24(&bufferSizeDB, field: "bufferSizeDB")
            try c.uint32(&maxBitrate)
            try c.uint32(&avgBitrate)
            let present = c.isReading ? c.peekUInt8() == 5 : decoderSpecificInfo != nil
            if present {
                var info = decoderSpecificInfo ?? DecoderSpecificInfo()
                try info.describe(&c)
                decoderSpecificInfo = info
            }
            try c.remainingBytes(&trailingDescriptors)
        }
    }
}

/// DecSpecificInfo (tag 5); for AAC its bytes are the AudioSpecificConfig.
public struct DecoderSpecificInfo: Sendable, Equatable {
    public var bytes: [UInt8] = []
    public var lengthFieldSize = 1

    public init() {}
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// AAC's AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1) is exactly these bytes.
    public var audioSpecificConfig: [UInt8] { bytes }

    mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.descriptor(tag: 5, lengthFieldSize: &lengthFieldSize) { (c) throws(MP4Error) in
            try c.remainingBytes(&bytes)
        }
    }
}

/// SLConfigDescriptor (tag 6). MP4 files use predefined = 2 with no further fields.
public struct SLConfigDescriptor: Sendable, Equatable {
    public var predefined: UInt8 = 2
    /// The custom fields when `predefined` is 0, as stored.
    public var body: [UInt8] = []
    public var lengthFieldSize = 1

    public init() {}

    mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.descriptor(tag: 6, lengthFieldSize: &lengthFieldSize) { (c) throws(MP4Error) in
            try c.uint8(&predefined)
            try c.remainingBytes(&body)
        }
    }
}
