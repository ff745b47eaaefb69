import Foundation

/// Record signatures, flags and fixed values of the ZIP format (PKWARE APPNOTE 6.3).
enum ZIPFormat {
    static let localHeaderSignature: UInt32 = 0x0403_4b50
    static let centralHeaderSignature: UInt32 = 0x0201_4b50
    static let endSignature: UInt32 = 0x0605_4b50
    static let zip64EndSignature: UInt32 = 0x0606_4b50
    static let zip64LocatorSignature: UInt32 = 0x0706_4b50
    static let dataDescriptorSignature: UInt32 = 0x0807_4b50

    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endSize = 22
    static let zip64EndSize = 56
    static let zip64LocatorSize = 20
    static let maxEndSearch = 22 + 65_535

    static let zip64ExtraID: UInt16 = 0x0001

    static let flagEncrypted: UInt16 = 1 << 0
    static let flagDataDescriptor: UInt16 = 1 << 3
    static let flagStrongEncryption: UInt16 = 1 << 6
    static let flagUTF8: UInt16 = 1 << 11
    static let flagMaskedHeaders: UInt16 = 1 << 13

    /// "Version needed" and the low byte of "version made by": spec 2.0, or 4.5 with ZIP64.
    /// "Version made by" high byte: Unix, whose external attributes carry the mode bits.
    static let unixHost: UInt16 = 3 << 8
    /// Unix mode in the high half, MS-DOS attributes in the low half.
    static let fileAttributes: UInt32 = 0o100644 << 16
    static let directoryAttributes: UInt32 = 0o040755 << 16 | 0x10
    static let version20: UInt16 = 20
    static let version45: UInt16 = 45

    static let max16: UInt64 = 0xFFFF
    static let max32: UInt64 = 0xFFFF_FFFF
}

/// Checked little-endian reads from a byte array; running off the end throws.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var index: Int
    let failure: ZIPError

    init(_ bytes: [UInt8], at index: Int = 0, failure: ZIPError = ZIPError(.truncated, "a record ends early")) {
        self.bytes = bytes
        self.index = index
        self.failure = failure
    }

    var remaining: Int { bytes.count - index }

    mutating func u8() throws(ZIPError) -> UInt8 {
        guard index >= 0, index < bytes.count else { throw failure }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() throws(ZIPError) -> UInt16 {
        let a = UInt16(try u8()), b = UInt16(try u8())
        return a | b << 8
    }

    mutating func u32() throws(ZIPError) -> UInt32 {
        let a = UInt32(try u16()), b = UInt32(try u16())
        return a | b << 16
    }

    mutating func u64() throws(ZIPError) -> UInt64 {
        let a = UInt64(try u32()), b = UInt64(try u32())
        return a | b << 32
    }

    mutating func take(_ count: Int) throws(ZIPError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw failure }
        defer { index += count }
        return Array(bytes[index..<(index + count)])
    }

    mutating func skip(_ count: Int) throws(ZIPError) {
        guard count >= 0, count <= remaining else { throw failure }
        index += count
    }
}

extension Array where Element == UInt8 {
    mutating func appendLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func appendLE(_ value: UInt32) {
        appendLE(UInt16(truncatingIfNeeded: value))
        appendLE(UInt16(truncatingIfNeeded: value >> 16))
    }

    mutating func appendLE(_ value: UInt64) {
        appendLE(UInt32(truncatingIfNeeded: value))
        appendLE(UInt32(truncatingIfNeeded: value >> 32))
    }
}

/// Sums that report overflow instead of trapping.
@inline(__always)
func checkedSum(_ values: UInt64...) -> UInt64? {
    var total: UInt64 = 0
    for v in values {
        let (r, o) = total.addingReportingOverflow(v)
        if o { return nil }
        total = r
    }
    return total
}

/// Runs `body` over each contiguous region of `data` without copying.
func forEachRegion(_ data: some DataProtocol, _ body: (UnsafeRawBufferPointer) throws(ZIPError) -> Void) throws(ZIPError) {
    for region in data.regions {
        let result: Result<Void, ZIPError> = region.withUnsafeBytes { raw in
            Result { () throws(ZIPError) in try body(raw) }
        }
        try result.get()
    }
}

/// MS-DOS date and time (local fields, two-second resolution), from a date read in UTC.
enum DOSDateTime {
    /// 1980-01-01 00:00:00, the earliest DOS date: deterministic archives use it.
    static let epoch: (time: UInt16, date: UInt16) = (0, 0x21)

    static func encode(_ date: Date?) -> (time: UInt16, date: UInt16) {
        guard let date else { return epoch }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard let year = c.year, let month = c.month, let day = c.day,
              let hour = c.hour, let minute = c.minute, let second = c.second else { return epoch }
        if year < 1980 { return epoch }
        if year > 2107 { return (0xBF7D, 0xFF9F) }   // 2107-12-31 23:59:58
        let time = UInt16(hour << 11 | minute << 5 | second / 2)
        let dosDate = UInt16((year - 1980) << 9 | month << 5 | day)
        return (time, dosDate)
    }
}
