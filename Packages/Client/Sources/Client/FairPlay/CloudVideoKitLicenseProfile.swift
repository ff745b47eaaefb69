import Foundation
import MediaDRMEncoding
import MediaDRMJSON

/// Cloud Video Kit: the licence URL is the configured licence-acquisition URL's scheme, host
/// and path with the query rebuilt as `brandGuid` followed by only the `kid` and `iv` items of
/// the key's `skd://` URI (any other parameter, on either, is dropped, so a stale user token in
/// a URL can never override the header); the tenant and the user token go as
/// `x-drm-brandGuid` and `x-drm-usertoken`, the SPC raw as `application/octet-stream`. The
/// certificate may come as DER, base64 or PEM; the CKC raw, or as `{"ckc": base64}` when
/// `acceptsJSON` sends `Accept: application/json`.
///
/// Query values are percent-decoded and re-encoded with only RFC 3986 unreserved characters
/// left as they are. The user token is a secret: no description of the profile shows it.
public struct CloudVideoKitLicenseProfile: FairPlayLicenseProfile, CustomStringConvertible, CustomReflectable {
    public let licenseURL: String
    public let certificateURL: String
    public let brandGUID: String
    let userToken: String
    public let acceptsJSON: Bool

    public init(licenseURL: String, certificateURL: String, brandGUID: String, userToken: String, acceptsJSON: Bool = false) {
        self.licenseURL = licenseURL
        self.certificateURL = certificateURL
        self.brandGUID = brandGUID
        self.userToken = userToken
        self.acceptsJSON = acceptsJSON
    }

    public func certificateRequest() throws(PlaybackError) -> TransportRequest {
        FairPlayLicenseFormat.certificateRequest(url: certificateURL)
    }

    public func certificate(from response: TransportResponse) throws(PlaybackError) -> Data {
        try FairPlayCertificateEncoding.der(response.body)
    }

    public func licenseRequest(keyURI: String, spc: Data) throws(PlaybackError) -> TransportRequest {
        var headers: TransportHeaders = ["x-drm-brandGuid": brandGUID, "x-drm-usertoken": userToken]
        if acceptsJSON { headers.add(name: "Accept", value: "application/json") }
        return FairPlayLicenseFormat.rawSPCRequest(url: try requestURL(keyURI: keyURI), spc: spc, headers: headers)
    }

    /// The licence URL for the key `keyURI` names.
    public func requestURL(keyURI: String) throws(PlaybackError) -> String {
        _ = try contentIdentifier(keyURI: keyURI)
        var items = [(name: "brandGuid", value: brandGUID)]
        for item in try Self.queryItems(of: keyURI) where ["kid", "iv"].contains(item.name.lowercased()) {
            items.append(item)
        }
        let query = items.map { Self.encode($0.name) + "=" + Self.encode($0.value) }.joined(separator: "&")
        return DeliveryURL.withoutQuery(licenseURL) + "?" + query
    }

    public func ckc(from response: TransportResponse) throws(PlaybackError) -> Data {
        let type = response.headers["content-type"]?.lowercased() ?? ""
        guard acceptsJSON, type.hasPrefix("application/json") else {
            return try FairPlayLicenseFormat.rawCKC(response, service: "Cloud Video Kit")
        }
        guard response.body.count <= FairPlayLicenseFormat.maxBytes * 2, let value = try? JSONParser.parse(response.body),
              case .string(let text)? = value.object?["ckc"], let ckc = try? Base64.decode(text),
              (1...FairPlayLicenseFormat.maxBytes).contains(ckc.count) else {
            throw PlaybackError(.malformed, "the Cloud Video Kit licence answer is not {\"ckc\": base64 of 1 byte to 1 MiB}")
        }
        return ckc
    }

    /// The `name=value` items of a URI's query, percent-decoded.
    static func queryItems(of uri: String) throws(PlaybackError) -> [(name: String, value: String)] {
        let query = DeliveryURL.query(uri).dropFirst()
        var items: [(name: String, value: String)] = []
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw PlaybackError(.invalidSource, "the key URI's query has a malformed percent-encoding")
            }
            items.append((name, value))
        }
        return items
    }

    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    public var description: String { "CloudVideoKitLicenseProfile(\(DeliveryURL.withoutQuery(licenseURL)), user token redacted)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
