import CZlib

/// One zlib inflate stream: raw deflate (windowBits -15, no header, as ZIP method 8 stores it)
/// or gzip (RFC 1952: 16 + 15, the gzip wrapper only, so a zlib or raw stream is refused). The
/// z_stream lives on the heap because zlib keeps a back pointer to it and refuses a stream that
/// moved. Nil when zlib cannot start one (out of memory).
final class ZlibInflater {
    enum Status { case progress, streamEnd, needsInputOrOutput, corrupt }
    enum Format {
        case rawDeflate, gzip
        var windowBits: Int32 { self == .rawDeflate ? -15 : 16 + 15 }
    }

    private let stream: UnsafeMutablePointer<z_stream>

    init?(_ format: Format) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard mediadrm_inflateInit2(stream, format.windowBits) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    /// Starts the stream again for the next gzip member; false when zlib refuses.
    func reset() -> Bool { inflateReset(stream) == Z_OK }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates from `input` into `output`; reports how much of each was used.
    func inflate(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) -> (consumed: Int, produced: Int, status: Status) {
        let inCount = min(input.count, Int(UInt32.max))
        let outCount = min(output.count, Int(UInt32.max))
        stream.pointee.next_in = inCount > 0 ? UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self)) : nil
        stream.pointee.avail_in = uInt(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(outCount)
        let ret = CZlib.inflate(stream, Z_NO_FLUSH)
        let consumed = inCount - Int(stream.pointee.avail_in)
        let produced = outCount - Int(stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch ret {
        case Z_OK: return (consumed, produced, .progress)
        case Z_STREAM_END: return (consumed, produced, .streamEnd)
        case Z_BUF_ERROR: return (consumed, produced, .needsInputOrOutput)
        default: return (consumed, produced, .corrupt)
        }
    }
}

/// Raw deflate (windowBits -15), as ZIP method 8 stores it.
final class ZlibDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var output = [UInt8](repeating: 0, count: 1 << 16)

    init(level: Int32 = Z_DEFAULT_COMPRESSION) throws(ZIPError) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard mediadrm_deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ZIPError(.io, "zlib could not start a deflate stream")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` (all of it), handing each produced block to `emit`. With `finish`, the
    /// stream is ended and flushed.
    func compress(_ input: UnsafeRawBufferPointer, finish: Bool,
                  _ emit: (UnsafeRawBufferPointer) throws(ZIPError) -> Void) throws(ZIPError) {
        var base = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        var left = input.count
        while true {
            let n = min(left, Int(UInt32.max))
            stream.pointee.next_in = n > 0 ? UnsafeMutablePointer(mutating: base) : nil
            stream.pointee.avail_in = uInt(n)
            let lastSlice = left == n
            let flush = (finish && lastSlice) ? Z_FINISH : Z_NO_FLUSH
            var ended = false
            repeat {
                let capacity = output.count
                let (ret, produced) = output.withUnsafeMutableBytes { raw -> (Int32, Int) in
                    stream.pointee.next_out = raw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = uInt(capacity)
                    let ret = deflate(stream, flush)
                    return (ret, capacity - Int(stream.pointee.avail_out))
                }
                stream.pointee.next_out = nil
                guard ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR else {
                    throw ZIPError(.badCompression, "zlib deflate failed")
                }
                if produced > 0 {
                    let result: Result<Void, ZIPError> = output.withUnsafeBytes { raw in
                        Result { () throws(ZIPError) in try emit(UnsafeRawBufferPointer(rebasing: raw[0..<produced])) }
                    }
                    try result.get()
                }
                if ret == Z_STREAM_END { ended = true }
                // Keep going while zlib filled the whole buffer (more is pending) or, when
                // finishing, until it reports the end of the stream.
                if flush == Z_FINISH { if ended { break } } else if stream.pointee.avail_in == 0 && produced < capacity { break }
            } while true
            stream.pointee.next_in = nil
            if let b = base { base = b + n }
            left -= n
            if left == 0 { break }
        }
    }
}
