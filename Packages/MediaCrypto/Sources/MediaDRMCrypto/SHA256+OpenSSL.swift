import COpenSSL

extension SHA256 {
    /// One-shot EVP digest. SHA-256 accepts every input, so a failure here means the OpenSSL
    /// installation is broken (no default provider), not that the caller passed bad bytes; the
    /// non-throwing API then traps rather than return a wrong digest.
    static func openSSLDigest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        // OpenSSL wants a non-NULL pointer even for zero bytes.
        let empty: UInt8 = 0
        let ok = digest.withUnsafeMutableBufferPointer { out -> Int32 in
            withUnsafePointer(to: empty) { emptyPointer in
                EVP_Digest(bytes.baseAddress ?? UnsafeRawPointer(emptyPointer), bytes.count,
                           out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        guard ok == 1, Int(length) == byteCount else {
            ERR_clear_error()
            preconditionFailure("OpenSSL SHA-256 is unavailable")
        }
        return digest
    }
}
