import Foundation
import CZlib

/// CRC-32 (ISO 3309, the ZIP and gzip checksum) computed by zlib.
public enum CRC32 {
    /// The CRC-32 of `bytes`, continuing from `initial` (the checksum of the bytes before them).
    public static func checksum(_ bytes: some DataProtocol, initial: UInt32 = 0) -> UInt32 {
        var crc = initial
        for region in bytes.regions {
            region.withUnsafeBytes { raw in crc = update(crc, raw) }
        }
        return crc
    }

    static func update(_ crc: UInt32, _ raw: UnsafeRawBufferPointer) -> UInt32 {
        guard var base = raw.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return crc }
        var value = uLong(crc)
        var left = raw.count
        // zlib takes a 32-bit length; feed huge buffers in slices.
        while left > 0 {
            let n = min(left, Int(Int32.max))
            value = crc32(value, base, uInt(n))
            base += n
            left -= n
        }
        return UInt32(truncatingIfNeeded: value)
    }
}
