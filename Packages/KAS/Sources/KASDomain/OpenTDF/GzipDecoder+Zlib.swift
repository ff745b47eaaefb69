import CZlib
import Foundation

/// Inflates gzip request bodies (RFC 1952; concatenated members allowed, as HTTP clients may
/// send them) through zlib, with a bound on the inflated size so a small body cannot expand
/// into an unbounded allocation.
package enum GzipDecoder {
    /// Default bound on an inflated body (the same order as the uncompressed body limit).
    public static let defaultMaximumOutput = 4 << 20

    public static func decompress(_ input: some DataProtocol, maximumOutput: Int = defaultMaximumOutput) throws(OpenTDFError) -> Data {
        let bytes = Array(input)
        guard !bytes.isEmpty else { throw OpenTDFError(.badCompression, "the gzip body is empty") }
        let stream = ZlibGzipStream()
        guard stream.isReady else { throw OpenTDFError(.internalFailure, "zlib could not be initialised") }
        return try stream.inflate(bytes, maximumOutput: maximumOutput)
    }
}

/// Owns one z_stream set up for gzip-only decoding; freed in deinit.
private final class ZlibGzipStream {
    private var stream = z_stream()
    let isReady: Bool

    init() {
        // 16 + 15: gzip wrapper only (a raw zlib or deflate stream is refused), 32 KiB window.
        isReady = mediadrm_inflateInit2(&stream, 16 + 15) == Z_OK
    }

    deinit {
        if isReady { inflateEnd(&stream) }
    }

    func inflate(_ input: [UInt8], maximumOutput: Int) throws(OpenTDFError) -> Data {
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var consumed = 0
        var result: OpenTDFError?
        input.withUnsafeBufferPointer { inputBuffer in
            guard let base = inputBuffer.baseAddress else { result = OpenTDFError(.badCompression, "the gzip body is empty"); return }
            while true {
                let remaining = input.count - consumed
                stream.next_in = UnsafeMutablePointer(mutating: base + consumed)
                stream.avail_in = uInt(min(remaining, Int(UInt32.max)))
                let status: Int32 = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = out.count - Int(stream.avail_out)
                    if let written = out.baseAddress { output.append(written, count: produced) }
                    return status
                }
                consumed = input.count - Int(stream.avail_in)
                if output.count > maximumOutput {
                    result = OpenTDFError(.tooLarge, "the gzip body inflates past the limit of \(maximumOutput) bytes")
                    return
                }
                switch status {
                case Z_STREAM_END:
                    if consumed == input.count { return }
                    // Another gzip member follows.
                    guard inflateReset(&stream) == Z_OK else {
                        result = OpenTDFError(.internalFailure, "zlib could not be reset")
                        return
                    }
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // Each call gets a fresh output chunk, so no progress means the input ended
                    // inside the stream.
                    result = OpenTDFError(.badCompression, "the gzip body is truncated")
                    return
                default:
                    result = OpenTDFError(.badCompression, "the gzip body is not valid gzip")
                    return
                }
            }
        }
        if let result { throw result }
        return output
    }
}
