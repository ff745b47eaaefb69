import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MediaDRMHLS

/// A cmaf package's manifests as one playback receives them (docs/delivery.md#per-playback-manifests):
/// standard players carry no query from a manifest's URL to the URIs inside it, so every URI is
/// written absolute and signed: segments and init segments on the origin (`OriginURLSigner`,
/// the title's prefix), media playlists on the KAS (the playback's manifest URL), and the MPD's
/// licence URL placeholder replaced by the playback's ClearKey licence URL, XML-escaped.
///
/// The catalogued texts were strictly read when the package was added (`CatalogCMAFReader`);
/// each is read again here with the same readers before it is rewritten.
enum PlaybackManifests {
    /// `{{MEDIADRM_CLEARKEY_LICENSE_URL}}` (docs/formats.md, `DASHManifest.licenseURLPlaceholder`).
    static let licenseURLPlaceholder = "{{MEDIADRM_CLEARKEY_LICENSE_URL}}"

    /// `video-1.m3u8` -> `video-1`; nil for anything but a plain `<name>.m3u8`.
    static func renditionName(playlist: String) -> String? {
        guard playlist.hasSuffix(".m3u8") else { return nil }
        let name = playlist.dropLast(5)
        return TitlePath.isValidName(name) ? String(name) : nil
    }

    /// Whether `uri` is a file (or a `$Number$` template) directly inside `<rendition>/`.
    static func isRenditionFile(_ uri: String, rendition: String) -> Bool {
        guard uri.hasPrefix(rendition + "/") else { return false }
        let file = uri.dropFirst(rendition.utf8.count + 1).replacingOccurrences(of: "$Number$", with: "0")
        return TitlePath.isValidName(Substring(file))
    }

    // MARK: DASH

    /// The `initialization` and `media` attributes of every `SegmentTemplate` of an MPD, read
    /// with Foundation's XML parser (no DTD, no entity, no external resource): the document
    /// must be well-formed UTF-8 XML whose root is `MPD`.
    static func segmentTemplates(_ mpd: Data) throws(PlaybackManifestError) -> [String] {
        guard mpd.count <= CatalogCMAFReader.maxManifestFileBytes, let text = String(data: mpd, encoding: .utf8) else {
            throw PlaybackManifestError("not UTF-8 text within \(CatalogCMAFReader.maxManifestFileBytes) bytes")
        }
        guard !text.contains("<!") else { throw PlaybackManifestError("a DTD, entity declaration, comment or CDATA section") }
        let parser = XMLParser(data: mpd)
        parser.shouldResolveExternalEntities = false
        let reader = SegmentTemplateReader()
        parser.delegate = reader
        guard parser.parse(), reader.root == "MPD" else { throw PlaybackManifestError("not a well-formed MPD document") }
        return reader.templates
    }

    /// The MPD with every segment template absolute and signed (`signed(relative)`) and the
    /// licence URL placeholder replaced by `licenseURL`, XML-escaped. The templates' values were
    /// checked to be plain rendition file names, which XML writes as they are, so each attribute
    /// is found by its exact text.
    static func mpd(_ mpd: Data, licenseURL: String, signed: (String) -> String) throws(PlaybackManifestError) -> Data {
        var text = String(decoding: mpd, as: UTF8.self)
        for template in Set(try segmentTemplates(mpd)) {
            let absolute = xmlEscaped(signed(template))
            for attribute in ["initialization", "media"] {
                text = text.replacingOccurrences(of: " \(attribute)=\"\(template)\"", with: " \(attribute)=\"\(absolute)\"")
            }
        }
        return Data(text.replacingOccurrences(of: licenseURLPlaceholder, with: xmlEscaped(licenseURL)).utf8)
    }

    /// An fps-v2 file's stored DASH view (`FPSv2Views`) for one playback: checked again to be a
    /// well-formed MPD, then its package URL and licence URL placeholders replaced, XML-escaped.
    static func viewMPD(_ mpd: Data, packageURL: String, licenseURL: String) throws(PlaybackManifestError) -> Data {
        _ = try segmentTemplates(mpd)
        let text = String(decoding: mpd, as: UTF8.self)
            .replacingOccurrences(of: FPSv2Views.packageURLPlaceholder, with: xmlEscaped(packageURL))
            .replacingOccurrences(of: licenseURLPlaceholder, with: xmlEscaped(licenseURL))
        return Data(text.utf8)
    }

    /// XML 1.0 character escapes for text and double-quoted attribute values.
    static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    // MARK: HLS

    /// The master playlist with each media playlist's URI on the KAS (`playlistURL(name)`).
    static func master(_ bytes: Data, playlistURL: (String) -> String) throws(PlaybackManifestError) -> Data {
        var master: HLSMasterPlaylist
        do {
            master = try HLSParser.parseMaster(bytes)
        } catch {
            throw PlaybackManifestError("not a master playlist")
        }
        for index in master.variants.indices { master.variants[index].uri = playlistURL(master.variants[index].uri) }
        for index in master.renditions.indices { master.renditions[index].uri = master.renditions[index].uri.map(playlistURL) }
        do {
            return Data((try HLSWriter.write(master) + "\n").utf8)
        } catch {
            throw PlaybackManifestError("the master playlist cannot be written")
        }
    }

    /// A media playlist with each segment's and map's URI absolute and signed (`signed(relative)`);
    /// its keys (`skd://` and ClearKey `data:` URIs) stay as packaged.
    static func media(_ bytes: Data, signed: (String) -> String) throws(PlaybackManifestError) -> Data {
        var media: HLSMediaPlaylist
        do {
            media = try HLSParser.parseMedia(bytes)
        } catch {
            throw PlaybackManifestError("not a media playlist")
        }
        for index in media.segments.indices {
            media.segments[index].uri = signed(media.segments[index].uri)
            if let map = media.segments[index].map?.uri { media.segments[index].map?.uri = signed(map) }
        }
        do {
            return Data((try HLSWriter.write(media) + "\n").utf8)
        } catch {
            throw PlaybackManifestError("the media playlist cannot be written")
        }
    }
}

/// Why a catalogued manifest could not be read or rewritten; a fixed sentence without its text.
struct PlaybackManifestError: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Collects the root element's name and every `SegmentTemplate`'s file attributes.
private final class SegmentTemplateReader: NSObject, XMLParserDelegate {
    var root: String?
    var templates: [String] = []

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]) {
        if root == nil { root = name }
        guard name == "SegmentTemplate" else { return }
        for attribute in ["initialization", "media"] {
            if let value = attributes[attribute] { templates.append(value) }
        }
    }
}
