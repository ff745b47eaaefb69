import Foundation
import MediaDRMDASH
import MediaDRMFPSv2
import MediaDRMHLS
import MediaDRMMedia
import MediaDRMMP4

/// The HLS and DASH views of an admitted fps-v2 archive (docs/formats.md "Views of fps-v2"):
/// standard players cannot open a ZIP, but every fps-v2 entry is stored, so each init and media
/// segment is one contiguous byte range of the `.tdf` file. The views name those ranges in the
/// file itself: HLS with `EXT-X-MAP:BYTERANGE` and `EXT-X-BYTERANGE` (RFC 8216 §4.3.2.5,
/// §4.3.2.2), DASH with a `SegmentList` of `mediaRange`s (ISO/IEC 23009-1 §5.3.9.3).
///
/// They are written once, when the package is catalogued, from what admission read (the
/// package's own playlists, their `EXT-X-KEY`s kept, and the ZIP directory's local headers,
/// `FPSv2AdmittedPackage.storedRange`), with `packageURLPlaceholder` where the `.tdf` URL goes
/// and the ClearKey licence URL placeholder: `DeliveryService.playbackManifest` puts each
/// playback's signed URLs in when it serves them.
enum FPSv2Views {
    /// Stands for the playback's signed `.tdf` URL in a stored view.
    static let packageURLPlaceholder = "{{MEDIADRM_PACKAGE_URL}}"

    /// `master.m3u8`, `<component>.m3u8` for each component, and `manifest.mpd`; none for a
    /// package directory, which is no one file to address.
    static func make(_ package: FPSv2AdmittedPackage) throws(CatalogError) -> [String: Data] {
        do {
            guard try package.storedRange(of: .master) != nil else { return [:] }
            var views: [String: Data] = [:]
            var sets: [MPDElement] = []
            for (index, component) in package.components.enumerated() {
                let ranged = try rangedPlaylist(component, in: package)
                views[FPSv2EntryName.playlist(component: component.id).name] = try HLSWriter.data(.media(ranged))
                sets.append(try adaptationSet(component, id: index, playlist: ranged, in: package))
            }
            views[FPSv2EntryName.masterName] = try HLSWriter.data(.master(package.master))
            views[DeliveryService.mpdName] = try DASHStaticPresentation.document(
                profiles: DASHStaticPresentation.fullProfile, duration: package.duration, adaptationSets: sets)
            return views
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError("the package's HLS and DASH views cannot be written: \(error)")
        }
    }

    /// The component's playlist with each map and segment a byte range of the package and each
    /// FairPlay `EXT-X-KEY` followed by the ClearKey key of the same IV.
    static func rangedPlaylist(_ component: FPSv2AdmittedPackage.Component,
                               in package: FPSv2AdmittedPackage) throws -> HLSMediaPlaylist {
        var playlist = component.playlist
        for index in playlist.segments.indices {
            var segment = playlist.segments[index]
            segment.byteRange = try range(segment.uri, in: package)
            segment.uri = packageURLPlaceholder
            if let map = segment.map {
                segment.map = HLSMap(uri: packageURLPlaceholder, byteRange: try range(map.uri, in: package))
            }
            segment.keys = segment.keys.flatMap { key in
                key.method == .sampleAES ? [withKeyItems(key, component), HLSKey.clearKey(keyID: Array(component.defaultKID), iv: key.iv)] : [key]
            }
            playlist.segments[index] = segment
        }
        return playlist
    }

    /// The FairPlay key with its URI naming the content key id and IV as query items
    /// (`skd://<uuid>/<component>?kid=&iv=`): Cloud Video Kit's apps copy them onto their licence
    /// request (docs/delivery.md "Cloud Video Kit"). Kept as written when the key has no IV.
    private static func withKeyItems(_ key: HLSKey, _ component: FPSv2AdmittedPackage.Component) -> HLSKey {
        guard let uri = key.uri, let iv = key.iv, let named = SKDKeyURI(servedKey: uri)?.withKey(id: component.defaultKID, iv: iv)
        else { return key }
        var key = key
        key.uri = named.text
        return key
    }

    /// The byte range of the entry a playlist names (`video-segment0.m4s`), as HLS writes it.
    private static func range(_ uri: String, in package: FPSv2AdmittedPackage) throws -> HLSByteRange {
        guard let name = FPSv2EntryName(uri), let stored = try package.storedRange(of: name),
              let length = Int(exactly: stored.count), let offset = Int(exactly: stored.lowerBound)
        else { throw CatalogError("'\(uri.prefix(64))' is not an entry of the archive") }
        return HLSByteRange(length: length, offset: offset)
    }

    /// One AdaptationSet (`id` its index: an unsigned int) of one Representation (`id` the component): the component's codec (the master's `CODECS`,
    /// one `avc1` and `mp4a.40.2` with audio, §7.2), its peak bit rate over the segments, the
    /// init's `mdhd` timescale, and the playlist's segments as a `SegmentList` whose timeline is
    /// the `EXTINF` durations summed in that timescale (so no rounding accumulates).
    private static func adaptationSet(_ component: FPSv2AdmittedPackage.Component, id: Int, playlist: HLSMediaPlaylist,
                                      in package: FPSv2AdmittedPackage) throws -> MPDElement {
        let isVideo = component.kind == .video
        let variant = package.master.variants.first
        let codecs = (variant?.codecs ?? []).first { isVideo != ($0 == "mp4a.40.2") }
        let timescale = try self.timescale(package.read(.initSegment(component: component.id)))
        var representation: [(String, String)] = [("id", component.id)]
        var peak = 0.0, elapsed = 0.0
        var timeline: [(start: Int64, duration: Int64)] = []
        var segmentURLs: [MPDElement] = []
        for segment in playlist.segments {
            guard let range = segment.byteRange, let offset = range.offset else { continue }
            if segment.duration > 0 { peak = max(peak, Double(range.length * 8) / segment.duration) }
            let start = Int64((elapsed * Double(timescale)).rounded())
            elapsed += segment.duration
            timeline.append((start, Int64((elapsed * Double(timescale)).rounded()) - start))
            segmentURLs.append(MPDElement("SegmentURL", [("media", packageURLPlaceholder), ("mediaRange", inclusive(offset, range.length))]))
        }
        representation.append(("bandwidth", String(Int(peak.rounded(.up)))))
        if let codecs { representation.append(("codecs", codecs)) }
        if isVideo, let resolution = variant?.resolution {
            representation += [("width", String(resolution.width)), ("height", String(resolution.height))]
        }
        var children: [MPDElement] = []
        if let channels = component.channelConfiguration {
            children.append(DASHAudioChannelConfiguration.element(channels: channels))
        }
        var list = MPDElement("SegmentList", [("timescale", String(timescale))])
        if let map = playlist.segments.first?.map, let range = map.byteRange, let offset = range.offset {
            list.children.append(MPDElement("Initialization", [("sourceURL", packageURLPlaceholder),
                                                              ("range", inclusive(offset, range.length))]))
        }
        list.children.append(DASHSegmentTimeline.element(timeline))
        list.children += segmentURLs
        children.append(list)
        let set = MPDElement("AdaptationSet", [
            ("id", String(id)), ("contentType", isVideo ? "video" : "audio"), ("mimeType", isVideo ? "video/mp4" : "audio/mp4"),
            ("segmentAlignment", "true"), ("startWithSAP", "1"),
        ], children: DASHContentProtection.elements(keyID: Array(component.defaultKID), pssh: nil,
                                                    licenseURL: DASHContentProtection.licenseURLPlaceholder)
            + [MPDElement("Representation", representation, children: children)])
        return set
    }

    /// `first-last`, both inclusive (ISO/IEC 23009-1 §5.3.9.2.2, as HTTP's byte-range-spec).
    private static func inclusive(_ offset: Int, _ length: Int) -> String { "\(offset)-\(offset + length - 1)" }

    /// The `mdhd` timescale of an init segment's one track.
    private static func timescale(_ initSegment: Data) throws -> UInt32 {
        let movie = try BoxParser.parse(Array(initSegment)).compactMap { $0 as? MovieBox }.first
        guard let timescale = movie?.tracks.first?.media?.mediaHeader?.timescale, timescale > 0 else {
            throw CatalogError("an init segment of the package has no media timescale")
        }
        return timescale
    }
}
