import Foundation
import MediaDRMMedia

/// A served key's `skd://` URI as the KAS reads an SPC's content id and a FairPlay key delegate a
/// key request's (`SKDKeyURI.parse(servedKey:)`, docs/delivery.md "Cloud Video Kit's licence
/// request"). What it accepts must write back to the same text up to the hex digits' case and the
/// items' order, and read again to the same URI; `init?(servedKey:)` and the fps-v2 grammar's
/// `init?(_:)` must agree with it.
enum SKDKeyURITarget {
    static let target = FuzzTarget("skd-key-uri", "SKDKeyURI.parse(servedKey:)") { input throws(FuzzViolation) in
        let text = String(decoding: input, as: UTF8.self)
        let parsed = try? SKDKeyURI.parse(servedKey: text)
        guard (SKDKeyURI(servedKey: text) != nil) == (parsed != nil) else {
            throw FuzzViolation("skd-key-uri", "init?(servedKey:) and parse(servedKey:) disagree")
        }
        guard let uri = parsed else {
            guard SKDKeyURI(text) == nil else { throw FuzzViolation("skd-key-uri", "the fps-v2 grammar takes a refused URI") }
            return .refused
        }
        guard uri.keyID?.count ?? 16 == 16, uri.iv?.count ?? 16 == 16, (uri.keyID == nil) == (uri.iv == nil),
              text.utf8.count <= SKDKeyURI.maximumLength, (try? SKDKeyURI.parse(servedKey: uri.text)) == uri,
              uri.text.utf8.count == text.utf8.count
        else { throw FuzzViolation("skd-key-uri", "an accepted URI breaks its rules or does not write back") }
        return .accepted
    }
}
