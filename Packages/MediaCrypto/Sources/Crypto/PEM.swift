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
/// that spans the input exactly. Checked before OpenSSL sees the bytes so that truncated or
/// padded input is refused the same way every time.
enum DERFrame {
    /// DER larger than this is not a key we accept (a 16384-bit RSA PKCS#8 key is under 10 KiB).
    static let maxBytes = 64 * 1024

    static func requireSingleSequence(_ der: [UInt8]) throws(CryptoError) {
        guard der.count <= maxBytes else {
            throw CryptoError(.invalidKeyEncoding, "DER key exceeds \(maxBytes) bytes")
        }
        guard der.count >= 2 else { throw CryptoError(.invalidKeyEncoding, "DER key is truncated") }
        guard der[0] == 0x30 else { throw CryptoError(.invalidKeyEncoding, "DER key does not start with a SEQUENCE") }
        let first = der[1]
        var length = 0
        var headerLength = 2
        if first < 0x80 {
            length = Int(first)
        } else {
            let lengthBytes = Int(first & 0x7F)
            guard lengthBytes >= 1, lengthBytes <= 3 else {
                throw CryptoError(.invalidKeyEncoding, "DER key length field is indefinite or too long")
            }
            guard der.count >= 2 + lengthBytes else { throw CryptoError(.invalidKeyEncoding, "DER key is truncated") }
            for index in 2..<(2 + lengthBytes) { length = length << 8 | Int(der[index]) }
            guard der[2] != 0, length >= 0x80 else {
                throw CryptoError(.invalidKeyEncoding, "DER key length is not minimal")
            }
            headerLength = 2 + lengthBytes
        }
        guard der.count - headerLength >= length else { throw CryptoError(.invalidKeyEncoding, "DER key is truncated") }
        guard der.count - headerLength == length else {
            throw CryptoError(.invalidKeyEncoding, "DER key has trailing bytes")
        }
    }
}
