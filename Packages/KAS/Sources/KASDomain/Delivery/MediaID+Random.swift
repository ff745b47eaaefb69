import MediaDRMCrypto
import MediaDRMMedia

extension MediaID {
    /// A fresh random id from OpenSSL's generator for a newly catalogued title. 8 of 62 symbols
    /// carry 47.6 bits, so a catalog of a million titles draws a collision with odds under one in
    /// 200 million (and the store refuses one all the same). Rejection sampling: a byte of 248 or
    /// more, past the last whole multiple of 62, is drawn again, so every symbol is equally likely.
    package static func random() throws(CryptoError) -> MediaID {
        var drawn: [UInt8] = []
        while drawn.count < length {
            for byte in try SecureRandom.bytes(count: length) where byte < 248 && drawn.count < length {
                drawn.append(symbols[Int(byte) % symbols.count])
            }
        }
        guard let id = MediaID(String(decoding: drawn, as: UTF8.self)) else { preconditionFailure("symbols are letters and digits") }
        return id
    }
}
