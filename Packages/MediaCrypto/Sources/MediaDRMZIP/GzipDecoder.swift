import Foundation

/// Inflates gzip data (RFC 1952) through zlib: what an HTTP body with `Content-Encoding: gzip`
/// carries, concatenated members allowed (RFC 1952 §2.2; HTTP clients may send them). The output
/// is bounded, so a small input cannot expand into an unbounded allocation (a gzip bomb stops at
/// `maximumOutput` plus one chunk).
public enum GzipDecoder {
    /// The default bound on the inflated size.
    public static let defaultMaximumOutput = 4 << 20
    private static let chunkSize = 64 << 10

    /// The inflated bytes of `input`; throws `GzipError` when it is not whole, valid gzip or
    /// inflates past `maximumOutput` bytes.
    public static func decompress(_ input: some DataProtocol, maximumOutput: Int = defaultMaximumOutput) throws(GzipError) -> Data {
        let bytes = Array(input)
        guard !bytes.isEmpty else { throw GzipError(.malformed, "the gzip data is empty") }
        guard let inflater = ZlibInflater(.gzip) else { throw GzipError(.unavailable, "zlib could not start an inflate stream") }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var consumed = 0
        while true {
            let step = bytes.withUnsafeBytes { input in
                chunk.withUnsafeMutableBytes { out in
                    inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed...]), out)
                }
            }
            consumed += step.consumed
            output.append(contentsOf: chunk[0..<step.produced])
            guard output.count <= maximumOutput else {
                throw GzipError(.tooLarge, "the gzip data inflates past the limit of \(maximumOutput) bytes")
            }
            switch step.status {
            case .streamEnd:
                if consumed == bytes.count { return output }
                // Another member follows.
                guard inflater.reset() else { throw GzipError(.unavailable, "zlib could not restart the inflate stream") }
            case .progress:
                continue
            case .needsInputOrOutput:
                // Each call gets a whole empty chunk, so no progress means the input ended inside a member.
                throw GzipError(.truncated, "the gzip data is truncated")
            case .corrupt:
                throw GzipError(.malformed, "the data is not valid gzip")
            }
        }
    }
}
