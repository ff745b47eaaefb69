import Foundation
import MediaDRMEncoding

/// A FairPlay application certificate answered as raw DER, as base64 text, or as PEM (Cloud
/// Video Kit accepts all three): always handed on as DER.
enum FairPlayCertificateEncoding {
    static let pemBegin = "-----BEGIN CERTIFICATE-----"
    static let pemEnd = "-----END CERTIFICATE-----"

    static func der(_ body: Data) throws(PlaybackError) -> Data {
        guard !body.isEmpty, body.count <= FairPlayLicenseFormat.maxBytes else {
            throw PlaybackError(.malformed, "the certificate answer is empty or larger than 1 MiB")
        }
        // DER opens with a SEQUENCE and holds bytes no base64 or PEM text has.
        let isText = body.allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) }
        if body.first == 0x30, !isText { return body }
        guard isText else { throw PlaybackError(.malformed, "the certificate answer is neither DER, base64 nor PEM") }
        var text = String(decoding: body, as: UTF8.self)
        if let begin = text.range(of: pemBegin) {
            guard let end = text.range(of: pemEnd, range: begin.upperBound..<text.endIndex) else {
                throw PlaybackError(.malformed, "the PEM certificate has no END line")
            }
            text = String(text[begin.upperBound..<end.lowerBound])
        }
        let compact = text.filter { !$0.isWhitespace }
        guard let der = try? Base64.decode(compact), der.first == 0x30 else {
            throw PlaybackError(.malformed, "the certificate answer is neither DER, base64 nor PEM")
        }
        return der
    }
}
