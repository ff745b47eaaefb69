import Foundation
import MediaDRMEncoding

/// An HTTP Basic credential (RFC 7617): `Authorization: Basic base64(id ":" secret)`, the way a
/// customer backend authenticates its backend calls (docs/delivery.md "DRM-X's backend call").
/// Nothing here is trusted: `DeliveryService.backendClient` checks the pair.
package struct BasicCredential: Sendable {
    /// A header longer than this is not read (an id of 64 bytes and a secret of a few hundred fit).
    static let maximumHeaderLength = 1024

    package let id: String
    package let secret: [UInt8]

    /// The one `Basic` header's credential; nil for none, several, another scheme (a viewer's
    /// `Bearer`), base64 that is not canonical, or no `:`.
    package init?(authorizationHeaderValues values: [String]) {
        guard values.count == 1, let value = values.first, value.utf8.count <= Self.maximumHeaderLength else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let decoded = try? Base64.decode(parts[1].trimmingCharacters(in: .whitespaces)),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        guard let id = String(data: decoded[decoded.startIndex..<colon], encoding: .utf8), !id.isEmpty else { return nil }
        self.id = id
        secret = Array(decoded[decoded.index(after: colon)...])
    }
}
