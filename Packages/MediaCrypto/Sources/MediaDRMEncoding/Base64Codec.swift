import Foundation

/// The shared engine of `Base64` and `Base64URL`. Decoding is strict in the same way for both
/// alphabets: one alphabet only, no whitespace, and the pad bits of the last quantum must be zero,
/// so every accepted text is the one encoding of its bytes (a signature or binding computed over
/// the text cannot be replayed under a second spelling).
struct Base64Codec: Sendable {
    private static let invalid: UInt8 = 0xFF

    let alphabet: [UInt8]
    let table: [UInt8]
    let name: String

    init(alphabet: String, name: String) {
        let symbols = Array(alphabet.utf8)
        var table = [UInt8](repeating: Base64Codec.invalid, count: 256)
        for (value, symbol) in symbols.enumerated() {
            table[Int(symbol)] = UInt8(value)
        }
        self.alphabet = symbols
        self.table = table
        self.name = name
    }

    static let standard = Base64Codec(
        alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", name: "base64")
    static let url = Base64Codec(
        alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", name: "base64url")

    func encode(_ input: some DataProtocol, padded: Bool) -> String {
        let bytes = ContiguousBytes(input)
        return bytes.withBuffer { src in
            var out = [UInt8]()
            out.reserveCapacity((src.count + 2) / 3 * 4)
            var i = 0
            while i + 3 <= src.count {
                let n = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8 | UInt32(src[i + 2])
                out.append(alphabet[Int(n >> 18 & 63)])
                out.append(alphabet[Int(n >> 12 & 63)])
                out.append(alphabet[Int(n >> 6 & 63)])
                out.append(alphabet[Int(n & 63)])
                i += 3
            }
            let rest = src.count - i
            if rest == 1 {
                let n = UInt32(src[i]) << 16
                out.append(alphabet[Int(n >> 18 & 63)])
                out.append(alphabet[Int(n >> 12 & 63)])
                if padded { out.append(UInt8(ascii: "=")); out.append(UInt8(ascii: "=")) }
            } else if rest == 2 {
                let n = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8
                out.append(alphabet[Int(n >> 18 & 63)])
                out.append(alphabet[Int(n >> 12 & 63)])
                out.append(alphabet[Int(n >> 6 & 63)])
                if padded { out.append(UInt8(ascii: "=")) }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// - Parameter paddingRequired: `true` for standard Base64 (RFC 4648 §4); `false` accepts
    ///   both the unpadded JOSE form and exactly-right padding.
    func decode(_ text: some StringProtocol, paddingRequired: Bool) throws(EncodingError) -> Data {
        let utf8 = Array(text.utf8)
        let equals = UInt8(ascii: "=")
        var padCount = 0
        while padCount < utf8.count, utf8[utf8.count - 1 - padCount] == equals { padCount += 1 }
        let dataCount = utf8.count - padCount

        var out = [UInt8]()
        out.reserveCapacity(dataCount / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<dataCount {
            let symbol = utf8[index]
            let value = table[Int(symbol)]
            if value == Base64Codec.invalid {
                if symbol == equals {
                    throw EncodingError(.invalidPadding, "\(name) padding before the end at offset \(index)")
                }
                throw EncodingError(.invalidCharacter, "\(name) text has a character outside its alphabet at offset \(index)")
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Characters are judged before lengths so stray whitespace is reported as what it is.
        if dataCount % 4 == 1 {
            throw EncodingError(.invalidLength, "\(name) text of \(dataCount) symbols cannot encode whole bytes")
        }
        let expectedPad = (4 - dataCount % 4) % 4
        if padCount > 2 || padCount > 0 && padCount != expectedPad {
            throw EncodingError(.invalidPadding, "\(name) padding does not match the text length")
        }
        if padCount == 0 && expectedPad != 0 && paddingRequired {
            throw EncodingError(.invalidPadding, "\(name) padding is missing")
        }

        if accumulator != 0 {
            throw EncodingError(.nonCanonical, "\(name) text has non-zero pad bits in its last symbol")
        }
        return Data(out)
    }
}

/// Contiguous view of any `DataProtocol` without copying when it already is contiguous.
struct ContiguousBytes<D: DataProtocol> {
    let value: D
    init(_ value: D) { self.value = value }

    func withBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = value.withContiguousStorageIfAvailable(body) {
            return result
        }
        let copy = Array(value)
        return copy.withUnsafeBufferPointer(body)
    }
}
