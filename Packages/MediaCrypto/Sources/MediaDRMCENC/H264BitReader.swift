extension H264 {
    /// Reads the bits of an RBSP (emulation prevention already removed) most significant bit
    /// first: fixed-width fields, `ue(v)` and `se(v)` exp-Golomb codes (§9.1) and the trailing
    /// bits. Every read is checked against the bits left; a value that needs more than 32 leading
    /// zeros (beyond 2^32 - 2) is refused rather than wrapped.
    public struct BitReader: Sendable {
        public let bytes: [UInt8]
        /// Bits consumed from the start of `bytes`.
        public private(set) var bitPosition: Int = 0

        public init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        public var bitsLeft: Int { bytes.count * 8 - bitPosition }

        /// One bit.
        public mutating func readFlag() throws(CENCError) -> Bool {
            try readBits(1) == 1
        }

        /// `count` bits (0 to 32) as an unsigned number.
        public mutating func readBits(_ count: Int) throws(CENCError) -> UInt32 {
            guard (0 ... 32).contains(count) else {
                throw CENCError(.invalidValue, "a fixed-width field is wider than 32 bits")
            }
            guard count <= bitsLeft else {
                throw CENCError(.truncated, "RBSP ends inside a \(count)-bit field at bit \(bitPosition)")
            }
            var value: UInt64 = 0
            var remaining = count
            while remaining > 0 {
                let byteIndex = bitPosition >> 3
                let bitInByte = bitPosition & 7
                let available = 8 - bitInByte
                let take = min(available, remaining)
                guard byteIndex < bytes.count else {
                    throw CENCError(.truncated, "RBSP ends at bit \(bitPosition)")
                }
                let byte = UInt64(bytes[byteIndex])
                let chunk = (byte >> UInt64(available - take)) & ((1 << UInt64(take)) - 1)
                value = (value << UInt64(take)) | chunk
                bitPosition += take
                remaining -= take
            }
            return UInt32(truncatingIfNeeded: value)
        }

        /// Skips `count` bits.
        public mutating func skipBits(_ count: Int) throws(CENCError) {
            guard count >= 0, count <= bitsLeft else {
                throw CENCError(.truncated, "RBSP ends while skipping \(count) bits at bit \(bitPosition)")
            }
            bitPosition += count
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
                let bitInByte = bitPosition & 7
                guard byteIndex < bytes.count else { break }
                let mask = UInt8(truncatingIfNeeded: 0xFF >> bitInByte)
                guard bytes[byteIndex] & mask == 0 else {
                    throw CENCError(.invalidValue, "data follows the RBSP trailing bits at byte \(byteIndex)")
                }
                bitPosition += 8 - bitInByte
            }
        }
    }
}
