import COpenSSL

extension SHA256Digest {
    static func openSSLDigest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        MediaDRMCrypto.openSSLDigest(bytes, algorithm: EVP_sha256(), byteCount: byteCount, name: "SHA-256")
    }
}
