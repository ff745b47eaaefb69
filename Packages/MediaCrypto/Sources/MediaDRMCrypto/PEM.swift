import Foundation

/// One RFC 7468 PEM block: a label and the DER bytes it armours.
struct PEMBlock {
    let label: String
    let der: [UInt8]
}

/// Strict PEM armour (RFC 7468 "strict" form, plus CRLF line ends and trailing spaces): only
/// whitespace may surround blocks; the body is base64 lines with no headers, so encrypted
/// legacy PEM ("Proc-Type:") is refused. Parsing is done here rather than by OpenSSL so that
/// labels are checked exactly and every failure maps to `.invalidKeyEncoding`.
enum PEM {
    /// PEM text larger than this is not a key.
    static let maxTextBytes = 256 * 1024

    static func encode(_ der: some Collection<UInt8>, label: String) -> String {
        let body = PEMBase64.encode(Array(der))
        var text = "-----BEGIN \(label)-----\n"
        var index = body.startIndex
        while index < body.endIndex {
            let end = body.index(index, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex
            text += body[index..<end]
            text += "\n"
            index = end
        }
        text += "-----END \(label)-----\n"
        return text
    }

    /// Exactly one block whose label is one of `labels`.
    static func decode(_ text: String, labels: Set<String>) throws(CryptoError) -> PEMBlock {
        let found = try blocks(text)
        guard found.count == 1 else {
            throw CryptoError(.invalidKeyEncoding, "PEM text must hold exactly one block")
        }
        guard labels.contains(found[0].label) else {
            throw CryptoError(.invalidKeyEncoding, "PEM label is not one this key type accepts")
        }
        return found[0]
    }

    /// Every block in `text`, in order.
    static func blocks(_ text: String) throws(CryptoError) -> [PEMBlock] {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxTextBytes else {
            throw CryptoError(.invalidKeyEncoding, "PEM text exceeds \(maxTextBytes) bytes")
        }
        var result: [PEMBlock] = []
        var openLabel: String? = nil
        var body: [UInt8] = []
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let line = trimmed(rawLine)
            if let label = openLabel {
                if let end = boundaryLabel(line, kind: "END") {
                    guard end == label else {
                        throw CryptoError(.invalidKeyEncoding, "PEM END label does not match its BEGIN label")
                    }
                    guard !body.isEmpty else { throw CryptoError(.invalidKeyEncoding, "PEM block has an empty body") }
                    guard let der = PEMBase64.decode(body) else {
                        throw CryptoError(.invalidKeyEncoding, "PEM body is not canonical padded base64")
                    }
                    result.append(PEMBlock(label: label, der: der))
                    openLabel = nil
                    body = []
                } else {
                    guard !line.isEmpty, line.allSatisfy(PEMBase64.isAlphabetOrPad) else {
                        throw CryptoError(.invalidKeyEncoding, "PEM body line holds a character outside base64")
                    }
                    body.append(contentsOf: line)
                }
            } else if line.isEmpty {
                continue
            } else if let label = boundaryLabel(line, kind: "BEGIN") {
                openLabel = label
            } else {
                throw CryptoError(.invalidKeyEncoding, "text outside a PEM block")
            }
        }
        guard openLabel == nil else { throw CryptoError(.invalidKeyEncoding, "PEM block has no END line") }
        guard !result.isEmpty else { throw CryptoError(.invalidKeyEncoding, "no PEM block found") }
        return result
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = line.endIndex
        while end > line.startIndex {
            let byte = line[line.index(before: end)]
            guard byte == UInt8(ascii: "\r") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") else { break }
            end = line.index(before: end)
        }
        return line[line.startIndex..<end]
    }

    /// The label of "-----BEGIN label-----" / "-----END label-----", or nil.
    private static func boundaryLabel(_ line: ArraySlice<UInt8>, kind: String) -> String? {
        let prefix = Array("-----\(kind) ".utf8)
        let suffix = Array("-----".utf8)
        guard line.count > prefix.count + suffix.count,
              line.starts(with: prefix),
              line.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        let label = line.dropFirst(prefix.count).dropLast(suffix.count)
        // RFC 7468 labels: printable ASCII without '-' at either end.
        guard let first = label.first, let last = label.last,
              first != UInt8(ascii: "-"), last != UInt8(ascii: "-"), first != UInt8(ascii: " "), last != UInt8(ascii: " "),
              label.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { return nil }
        return String(decoding: label, as: UTF8.self)
    }
}

/// The outer frame of a DER key document: a single SEQUENCE with a minimal definite length
/// that spans the input exactly, and which of the key structures it has. Checked before
/// OpenSSL sees the bytes: truncated or padded input is refused the same way every time, and
/// OpenSSL's decoders (which also try other structures than the one asked for) only ever see
/// the structure the caller named.
enum DERFrame {
    /// DER larger than this is not a key we accept (a 16384-bit RSA PKCS#8 key is under 10 KiB).
    static let maxBytes = 64 * 1024

    enum Shape: Equatable {
        /// SubjectPublicKeyInfo: SEQUENCE { SEQUENCE algorithm, BIT STRING }
        case subjectPublicKeyInfo
        /// PKCS#1 RSAPublicKey: SEQUENCE { INTEGER n, INTEGER e }
        case rsaPublicKey
        /// PKCS#8 PrivateKeyInfo / OneAsymmetricKey: SEQUENCE { INTEGER 0|1, SEQUENCE algorithm, OCTET STRING ... }
        case privateKeyInfo
        /// PKCS#1 RSAPrivateKey: SEQUENCE { INTEGER 0|1, INTEGER n, ... }
        case rsaPrivateKey
        /// SEC1 ECPrivateKey: SEQUENCE { INTEGER 1, OCTET STRING d, ... }
        case ecPrivateKey
    }

    /// Requires `der` to be one SEQUENCE with exactly `expected` shape.
    static func require(_ der: [UInt8], shape expected: Shape) throws(CryptoError) {
        guard try shape(der) == expected else {
            throw CryptoError(.invalidKeyEncoding, "DER key does not have the expected structure")
        }
    }

    static func shape(_ der: [UInt8]) throws(CryptoError) -> Shape {
        guard der.count <= maxBytes else {
            throw CryptoError(.invalidKeyEncoding, "DER key exceeds \(maxBytes) bytes")
        }
        guard let outer = header(der, at: 0), der[0] == 0x30 else {
            throw CryptoError(.invalidKeyEncoding, "DER key is truncated or does not start with a SEQUENCE")
        }
        guard der.count - outer.contentStart >= outer.length else { throw CryptoError(.invalidKeyEncoding, "DER key is truncated") }
        guard der.count - outer.contentStart == outer.length else {
            throw CryptoError(.invalidKeyEncoding, "DER key has trailing bytes")
        }
        let unknown = CryptoError(.invalidKeyEncoding, "DER key has an unknown structure")
        guard let first = header(der, at: outer.contentStart) else { throw unknown }
        switch der[outer.contentStart] {
        case 0x30:
            return .subjectPublicKeyInfo
        case 0x02:
            let afterFirst = first.contentStart + first.length
            // A version INTEGER is one byte 0 or 1; anything else is an RSA modulus.
            guard first.length == 1, first.contentStart < der.count, der[first.contentStart] <= 1 else { return .rsaPublicKey }
            guard afterFirst < der.count else { throw unknown }
            switch (der[first.contentStart], der[afterFirst]) {
            case (_, 0x30): return .privateKeyInfo
            case (_, 0x02): return .rsaPrivateKey
            case (1, 0x04): return .ecPrivateKey
            default: throw unknown
            }
        default:
            throw unknown
        }
    }

    /// Any of the key structures, framed correctly.
    static func requireSingleSequence(_ der: [UInt8]) throws(CryptoError) {
        _ = try shape(der)
    }

    /// The tag-length header at `offset`: where the contents start and how long they are.
    /// Nil when the header is truncated, indefinite, non-minimal or longer than 3 length bytes.
    private static func header(_ der: [UInt8], at offset: Int) -> (contentStart: Int, length: Int)? {
        guard offset >= 0, der.count - offset >= 2 else { return nil }
        let first = der[offset + 1]
        if first < 0x80 { return (offset + 2, Int(first)) }
        let lengthBytes = Int(first & 0x7F)
        guard lengthBytes >= 1, lengthBytes <= 3, der.count - offset - 2 >= lengthBytes else { return nil }
        var length = 0
        for index in (offset + 2)..<(offset + 2 + lengthBytes) { length = length << 8 | Int(der[index]) }
        guard der[offset + 2] != 0, length >= 0x80 else { return nil }
        return (offset + 2 + lengthBytes, length)
    }
}
