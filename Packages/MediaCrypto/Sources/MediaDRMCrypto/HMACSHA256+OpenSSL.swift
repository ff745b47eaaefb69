import COpenSSL

extension HMACSHA256 {
    /// One-shot HMAC-SHA256. It accepts every key and message, so a failure means the OpenSSL
    /// installation is broken; the non-throwing API then traps rather than return a wrong MAC.
    static func openSSLHMACSHA256(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: SHA256Digest.byteCount)
        var length: UInt32 = 0
        // OpenSSL treats a NULL key as "reuse the previous key"; give empty inputs a real pointer.
        let empty: UInt8 = 0
        let result = mac.withUnsafeMutableBufferPointer { out -> UnsafeMutablePointer<UInt8>? in
            withUnsafePointer(to: empty) { emptyPointer in
                COpenSSL.HMAC(EVP_sha256(),
                              key.baseAddress ?? UnsafeRawPointer(emptyPointer), Int32(key.count),
                              message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyPointer, message.count,
                              out.baseAddress, &length)
            }
        }
        guard result != nil, Int(length) == SHA256Digest.byteCount else {
            ERR_clear_error()
            preconditionFailure("OpenSSL HMAC-SHA256 is unavailable")
        }
        return mac
    }
}
