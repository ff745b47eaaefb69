extension HEVC {
    /// One NAL unit of a length-prefixed (ISO/IEC 14496-15) HEVC sample and its two-byte header
    /// (§7.3.1.2).
    public struct NALUnit: Sendable, Equatable {
        /// Where the length prefix starts in the sample.
        public let prefixOffset: Int
        /// The NAL unit bytes (header and payload) in the sample, without the length prefix.
        public let range: Range<Int>
        /// `nal_unit_type` (0 ... 63).
        public let typeCode: UInt8
        /// `nuh_layer_id` (0 ... 63).
        public let layerID: UInt8
        /// `nuh_temporal_id_plus1` (1 ... 7).
        public let temporalIDPlus1: UInt8

        public var type: NALUnitType? { NALUnitType(rawValue: typeCode) }
        public var isVideoCodingLayer: Bool { HEVC.videoCodingLayerTypes.contains(typeCode) }
        public var isRandomAccessPoint: Bool { HEVC.randomAccessTypes.contains(typeCode) }

        /// Splits a length-prefixed sample (`lengthSize` 1, 2 or 4, from `hvcC`) into NAL units.
        /// Every length is checked against the bytes left; a NAL unit shorter than its two-byte
        /// header, a set `forbidden_zero_bit` or `nuh_temporal_id_plus1` 0 is refused.
        public static func split(_ sample: [UInt8], lengthSize: Int) throws(CENCError) -> [NALUnit] {
            // The length framing is the same as H.264's; only the header differs.
            try H264.NALUnit.split(sample, lengthSize: lengthSize).map { (unit: H264.NALUnit) throws(CENCError) -> NALUnit in
                guard unit.range.count >= 2 else {
                    throw CENCError(.invalidNALUnit, "a NAL unit at offset \(unit.prefixOffset) is shorter than its two-byte header")
                }
                return try NALUnit(header: sample[unit.range.lowerBound], sample[unit.range.lowerBound + 1],
                                   prefixOffset: unit.prefixOffset, range: unit.range)
            }
        }

        /// The header of a NAL unit given without a length prefix (a parameter set from `hvcC`).
        public init(nalUnit: some Collection<UInt8>) throws(CENCError) {
            let bytes = Array(nalUnit.prefix(2))
            guard bytes.count == 2 else { throw CENCError(.truncated, "a NAL unit is shorter than its two-byte header") }
            try self.init(header: bytes[0], bytes[1], prefixOffset: 0, range: 0 ..< nalUnit.count)
        }

        init(header first: UInt8, _ second: UInt8, prefixOffset: Int, range: Range<Int>) throws(CENCError) {
            guard first & 0x80 == 0 else {
                throw CENCError(.invalidNALUnit, "forbidden_zero_bit set in the NAL unit at offset \(prefixOffset)")
            }
            let temporal = second & 0x07
            guard temporal != 0 else {
                throw CENCError(.invalidNALUnit, "nuh_temporal_id_plus1 is 0 in the NAL unit at offset \(prefixOffset)")
            }
            self.prefixOffset = prefixOffset
            self.range = range
            typeCode = (first >> 1) & 0x3F
            layerID = (first & 0x01) << 5 | second >> 3
            temporalIDPlus1 = temporal
        }
    }
}
