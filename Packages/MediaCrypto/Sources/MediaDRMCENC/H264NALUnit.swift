extension H264 {
    /// One NAL unit of a length-prefixed (ISO/IEC 14496-15) sample: where it lies in the sample
    /// and its one-byte header.
    public struct NALUnit: Sendable, Equatable {
        /// Where the length prefix starts in the sample.
        public let prefixOffset: Int
        /// The NAL unit bytes (header byte and payload) in the sample, without the length prefix.
        public let range: Range<Int>
        /// The `nal_unit_header` byte.
        public let header: UInt8

        /// `nal_unit_type` (0 ... 31).
        public var typeCode: UInt8 { header & 0x1F }
        public var type: NALUnitType? { NALUnitType(rawValue: typeCode) }
        /// `nal_ref_idc` (0 ... 3).
        public var referenceIDC: UInt8 { (header >> 5) & 0x03 }
        /// The length prefix plus the NAL unit.
        public var totalRange: Range<Int> { prefixOffset ..< range.upperBound }

        /// A coded slice of the primary picture (types 1 to 5) or of an extension (20, 21):
        /// video coding layer data that `cbcs` protects.
        public var isVideoSlice: Bool {
            (1 ... 5).contains(typeCode) || typeCode == 20 || typeCode == 21
        }

        /// Splits a length-prefixed sample into NAL units. `lengthSize` is 1, 2 or 4 (avcC's
        /// `lengthSizeMinusOne + 1`; the packager itself requires 4). Every length is checked
        /// against the bytes left; a zero length, a set `forbidden_zero_bit` or bytes after the
        /// last NAL unit are refused.
        public static func split(_ sample: [UInt8], lengthSize: Int) throws(CENCError) -> [NALUnit] {
            guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
                throw CENCError(.unsupported, "NAL unit length size \(lengthSize); only 1, 2 and 4 are handled")
            }
            var units: [NALUnit] = []
            var offset = 0
            while offset < sample.count {
                guard sample.count - offset >= lengthSize else {
                    throw CENCError(.truncated, "sample ends inside a NAL unit length at offset \(offset)")
                }
                var length = 0
                for index in offset ..< offset + lengthSize {
                    length = length << 8 | Int(sample[index])
                }
                let start = offset + lengthSize
                guard length > 0 else {
                    throw CENCError(.invalidNALUnit, "zero NAL unit length at offset \(offset)")
                }
                guard length <= sample.count - start else {
                    throw CENCError(.truncated, "NAL unit length \(length) at offset \(offset) exceeds the \(sample.count - start) bytes left")
                }
                let header = sample[start]
                guard header & 0x80 == 0 else {
                    throw CENCError(.invalidNALUnit, "forbidden_zero_bit set in the NAL unit at offset \(offset)")
                }
                units.append(NALUnit(prefixOffset: offset, range: start ..< start + length, header: header))
                offset = start + length
            }
            return units
        }
    }
}
