import MediaDRMMP4

extension H264 {
    /// Reads the bits of an RBSP (emulation prevention already removed) most significant bit
    /// first: fixed-width fields through MediaDRMMP4's `BitReader` (the one bit reader), and here
    /// the H.264 syntax on top: `ue(v)` and `se(v)` exp-Golomb codes (§9.1) and the trailing bits,
    /// with `CENCError`s that name the RBSP. A value that needs more than 32 leading zeros (beyond
    /// 2^32 - 2) is refused rather than wrapped.
    public struct BitReader: Sendable {
        private var bits: MediaDRMMP4.BitReader

        public init(_ bytes: [UInt8]) {
            bits = MediaDRMMP4.BitReader(bytes)
        }

        public var bytes: [UInt8] { bits.bytes }
        /// Bits consumed from the start of `bytes`.
        public var bitPosition: Int { bits.bitPosition }
        public var bitsLeft: Int { bits.bitsLeft }

        /// One bit.
        public mutating func readFlag() throws(CENCError) -> Bool {
            try readBits(1) == 1
        }

        /// `count` bits (0 to 32) as an unsigned number.
        public mutating func readBits(_ count: Int) throws(CENCError) -> UInt32 {
            guard (0 ... 32).contains(count) else {
                throw CENCError(.invalidValue, "a fixed-width field is wider than 32 bits")
            }
            do {
                return try bits.readBits(count)
            } catch {
                throw CENCError(.truncated, "RBSP ends inside a \(count)-bit field at bit \(bitPosition)")
            }
        }

        /// Skips `count` bits.
        public mutating func skipBits(_ count: Int) throws(CENCError) {
            do {
                try bits.skipBits(count)
            } catch {
                throw CENCError(.truncated, "RBSP ends while skipping \(count) bits at bit \(bitPosition)")
            }
        }

        /// `ue(v)`: 0 ... 2^32 - 2.
        public mutating func readUE() throws(CENCError) -> UInt32 {
            var leadingZeros = 0
            while try !readFlag() {
                leadingZeros += 1
                guard leadingZeros < 32 else {
                    throw CENCError(.invalidValue, "an exp-Golomb code has 32 or more leading zero bits at bit \(bitPosition)")
                }
            }
            let suffix = try readBits(leadingZeros)
            return UInt32((UInt64(1) << UInt64(leadingZeros)) - 1 + UInt64(suffix))
        }

        /// `se(v)`: -(2^31 - 1) ... 2^31 - 1.
        public mutating func readSE() throws(CENCError) -> Int32 {
            let codeNum = try readUE()
            let magnitude = Int32((UInt64(codeNum) + 1) / 2)
            return codeNum & 1 == 1 ? magnitude : -magnitude
        }

        /// `ue(v)` that must lie in `range`; `field` names the syntax element in the error.
        public mutating func readUE(_ field: String, in range: ClosedRange<Int>) throws(CENCError) -> Int {
            let value = Int(try readUE())
            guard range.contains(value) else {
                throw CENCError(.invalidValue, "\(field) is \(value), outside \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }

        /// `se(v)` that must lie in `range`.
        public mutating func readSE(_ field: String, in range: ClosedRange<Int>) throws(CENCError) -> Int {
            let value = Int(try readSE())
            guard range.contains(value) else {
                throw CENCError(.invalidValue, "\(field) is \(value), outside \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }

        /// `more_rbsp_data()` (§7.2): whether a one bit follows the current position other than
        /// the last one bit of the RBSP (the stop bit).
        public func hasMoreRBSPData() -> Bool {
            guard let lastNonZero = bytes.lastIndex(where: { $0 != 0 }) else { return false }
            let byte = bytes[lastNonZero]
            let stopBitPosition = lastNonZero * 8 + 7 - byte.trailingZeroBitCount
            return bitPosition < stopBitPosition
        }

        /// `rbsp_trailing_bits()`: the stop bit, then zero bits to the end of the RBSP (trailing
        /// zero bytes included).
        public mutating func readTrailingBits() throws(CENCError) {
            guard try readFlag() else {
                throw CENCError(.invalidValue, "rbsp_stop_one_bit is 0 at bit \(bitPosition - 1)")
            }
            while bitsLeft > 0 {
                let byteIndex = bitPosition >> 3
                guard try readBits(min(8 - (bitPosition & 7), bitsLeft)) == 0 else {
                    throw CENCError(.invalidValue, "data follows the RBSP trailing bits at byte \(byteIndex)")
                }
            }
        }
    }
}
