import Foundation
import MediaDRMHLS
import MediaDRMJSON

/// One WebVTT subtitle rendition of a directory title (tdf-hls or cmaf), as its master playlist
/// names it (`EXT-X-MEDIA:TYPE=SUBTITLES`, RFC 8216 §4.3.4.1): the delivery API lists each as a
/// `captions` track, its `file` signed for the title's prefix (docs/delivery.md#the-delivery-api).
package struct CatalogSubtitle: Sendable, Equatable {
    /// The rendition's playlist, relative to the title's directory (`subs-en.m3u8`).
    package var uri: String
    /// Its `NAME`, what a player shows (`English`).
    package var name: String

    package init(uri: String, name: String) {
        self.uri = uri
        self.name = name
    }

    /// The subtitle renditions a master playlist names, in its order: those with a `URI` (the
    /// package's readers have already read each playlist as a file of the title's directory).
    package static func renditions(of master: HLSMasterPlaylist) -> [CatalogSubtitle] {
        master.renditions.compactMap { rendition in
            guard rendition.type == .subtitles, let uri = rendition.uri else { return nil }
            return CatalogSubtitle(uri: uri, name: rendition.name)
        }
    }

    /// The stores' text of a list: a JSON array of `{"name", "uri"}`; nil when there are none.
    package static func text(_ subtitles: [CatalogSubtitle]) -> String? {
        guard !subtitles.isEmpty else { return nil }
        let items: [JSONValue] = subtitles.map { .object(JSONObject([("name", .string($0.name)), ("uri", .string($0.uri))])) }
        return String(decoding: JSONWriter.write(.array(items), options: [.sortedKeys]), as: UTF8.self)
    }

    /// `text(_:)` read back; an unreadable text reads as none.
    package static func list(text: String?) -> [CatalogSubtitle] {
        guard let text, case .array(let items)? = try? JSONParser.parse(Array(text.utf8), limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 3))
        else { return [] }
        var subtitles: [CatalogSubtitle] = []
        for item in items {
            guard let uri = item.object?["uri"]?.string, let name = item.object?["name"]?.string else { return [] }
            subtitles.append(CatalogSubtitle(uri: uri, name: name))
        }
        return subtitles
    }
}
