import COpenSSL

/// One-shot EVP digest for the fixed-length hashes here (SHA-256, MD5). Every input is valid,
/// so a failure means the OpenSSL installation is broken (no default provider), not that the
/// caller passed bad bytes; the non-throwing hash APIs then trap rather than return a wrong
/// digest.
func openSSLDigest(_ bytes: UnsafeRawBufferPointer, algorithm: OpaquePointer?, byteCount: Int, name: String) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: byteCount)
    var length: UInt32 = 0
    // OpenSSL wants a non-NULL pointer even for zero bytes.
    let empty: UInt8 = 0
    let ok = digest.withUnsafeMutableBufferPointer { out -> Int32 in
        withUnsafePointer(to: empty) { emptyPointer in
            EVP_Digest(bytes.baseAddress ?? UnsafeRawPointer(emptyPointer), bytes.count,
                       out.baseAddress, &length, algorithm, nil)
        }
    }
    guard ok == 1, Int(length) == byteCount else {
        ERR_clear_error()
        preconditionFailure("OpenSSL \(name) is unavailable")
    }
    return digest
}
