import COpenSSL
import Foundation

/// Random bytes from OpenSSL's DRBG. A failure throws; an unfilled buffer is never returned.
public enum SecureRandom {
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw CryptoError(.invalidSize, "random byte count must not be negative") }
        if count == 0 { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let ok = buffer.withUnsafeMutableBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return 0 }
            return RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        guard ok == 1 else {
            ERR_clear_error()
            throw CryptoError(.randomFailure, "the system random generator failed")
        }
        return buffer
    }

    public static func data(count: Int) throws(CryptoError) -> Data {
        Data(try bytes(count: count))
    }
}
