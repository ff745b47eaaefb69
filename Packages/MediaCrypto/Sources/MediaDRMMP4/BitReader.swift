/// Reads bits most significant first, as ISO/IEC 14496 descriptors and the H.264/HEVC RBSPs
/// store them. Every read is checked against the bits left, so a truncated field is an error,
/// never a read past the end. MediaDRMCENC's `H264.BitReader` adds exp-Golomb codes on top.
public struct BitReader: Sendable {
    public let bytes: [UInt8]
    /// Bits consumed from the start of `bytes`.
    public private(set) var bitPosition: Int = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var bitsLeft: Int { bytes.count * 8 - bitPosition }

    /// `count` bits (0 to 32) as an unsigned number.
    public mutating func readBits(_ count: Int) throws(MP4Error) -> UInt32 {
        guard (0 ... 32).contains(count) else {
            throw MP4Error(.invalidField, "a bit field of \(count) bits is not 0 to 32 bits wide")
        }
        guard count <= bitsLeft else {
            throw MP4Error(.truncated, "the bytes end inside a \(count)-bit field at bit \(bitPosition)")
        }
        var value: UInt64 = 0
        var remaining = count
        while remaining > 0 {
            let bitInByte = bitPosition & 7
            let available = 8 - bitInByte
            let take = min(available, remaining)
            let byte = UInt64(bytes[bitPosition >> 3])
            value = value << UInt64(take) | (byte >> UInt64(available - take)) & ((1 << UInt64(take)) - 1)
            bitPosition += take
            remaining -= take
        }
        return UInt32(truncatingIfNeeded: value)
    }

    /// One bit.
    public mutating func readFlag() throws(MP4Error) -> Bool {
        try readBits(1) == 1
    }

    /// Skips `count` bits.
    public mutating func skipBits(_ count: Int) throws(MP4Error) {
        guard count >= 0, count <= bitsLeft else {
            throw MP4Error(.truncated, "the bytes end while skipping \(count) bits at bit \(bitPosition)")
        }
        bitPosition += count
    }
}
