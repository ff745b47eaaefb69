import Foundation

/// Pull-style reader of one entry's bytes. `next()` returns chunks of at most `chunkSize` bytes
/// and `nil` at the end, once the size and CRC-32 have been verified; any failure is thrown and
/// repeated by later calls. Deflate output never exceeds the declared uncompressed size: a stream
/// that would inflate further fails with `.sizeMismatch` before the extra bytes are produced.
public final class ZIPEntryStream {
    public let entry: ZIPEntry
    private let source: any ZIPRandomAccessSource
    private let chunkSize: Int
    private var position: UInt64
    private var compressedLeft: UInt64
    private var input: [UInt8] = []
    private var inputIndex = 0
    private var produced: UInt64 = 0
    private var crc: UInt32 = 0
    private let inflater: ZlibInflater?
    private var streamEnded = false
    private var finished = false
    private var failure: ZIPError?

    init(source: any ZIPRandomAccessSource, entry: ZIPEntry, chunkSize: Int) throws(ZIPError) {
        self.entry = entry
        self.source = source
        self.chunkSize = chunkSize
        self.position = entry.dataOffset ?? entry.localHeaderOffset
        self.compressedLeft = entry.compressedSize
        if entry.compressionMethod == .deflate {
            guard let inflater = ZlibInflater(.rawDeflate) else { throw ZIPError(.io, "zlib could not start an inflate stream") }
            self.inflater = inflater
        } else {
            self.inflater = nil
        }
    }

    public func next() throws(ZIPError) -> Data? {
        if let failure { throw failure }
        if finished { return nil }
        do {
            if let chunk = try produce() {
                return chunk
            }
            try verifyEnd()
            finished = true
            return nil
        } catch {
            failure = error
            throw error
        }
    }

    private func produce() throws(ZIPError) -> Data? {
        guard let inflater else {
            guard compressedLeft > 0 else { return nil }
            let n = Int(min(UInt64(chunkSize), compressedLeft))
            let bytes = try ZIPReader.read(source, offset: position, count: n)
            position += UInt64(n)
            compressedLeft -= UInt64(n)
            produced += UInt64(n)
            crc = bytes.withUnsafeBytes { CRC32.update(crc, $0) }
            return Data(bytes)
        }
        var output = [UInt8](repeating: 0, count: chunkSize)
        while !streamEnded {
            if inputIndex == input.count && compressedLeft > 0 {
                let n = Int(min(UInt64(max(chunkSize, 1 << 14)), compressedLeft))
                input = try ZIPReader.read(source, offset: position, count: n)
                inputIndex = 0
                position += UInt64(n)
                compressedLeft -= UInt64(n)
            }
            // Never offer zlib more room than the declared size leaves; at the bound, a one-byte
            // probe tells a finished stream from one that would inflate further.
            let room = min(UInt64(chunkSize), entry.uncompressedSize - produced)
            let capacity = room == 0 ? 1 : Int(room)
            let start = inputIndex
            let (consumed, got, status) = input.withUnsafeBytes { inRaw in
                output.withUnsafeMutableBytes { outRaw in
                    inflater.inflate(UnsafeRawBufferPointer(rebasing: inRaw[start...]),
                                     UnsafeMutableRawBufferPointer(rebasing: outRaw[0..<capacity]))
                }
            }
            inputIndex += consumed
            if status == .corrupt { throw ZIPError(.badCompression, "the deflate stream is corrupt") }
            if room == 0 && got > 0 {
                throw ZIPError(.sizeMismatch, "the deflate stream inflates past the declared uncompressed size")
            }
            if status == .streamEnd { streamEnded = true }
            if got > 0 {
                produced += UInt64(got)
                crc = output.withUnsafeBytes { CRC32.update(crc, UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
                return Data(output[0..<got])
            }
            if !streamEnded && consumed == 0 {
                if inputIndex == input.count && compressedLeft == 0 {
                    throw ZIPError(.badCompression, "the deflate stream ends before its end marker")
                }
                throw ZIPError(.badCompression, "the deflate stream makes no progress")
            }
        }
        return nil
    }

    private func verifyEnd() throws(ZIPError) {
        if inflater != nil && (inputIndex < input.count || compressedLeft > 0) {
            throw ZIPError(.badCompression, "bytes follow the end of the deflate stream")
        }
        guard produced == entry.uncompressedSize else {
            throw ZIPError(.sizeMismatch, "the entry's data is shorter than its declared uncompressed size")
        }
        guard crc == entry.crc32 else {
            throw ZIPError(.crcMismatch, "the entry's CRC-32 does not match its data")
        }
    }
}
