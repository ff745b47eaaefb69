import Foundation
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMMP4
import MediaDRMTDF

/// Reads a `--profile cmaf` directory (docs/formats.md "cmaf package") to catalog it, with the
/// checks the key path applies: `manifest.json` through `ManifestAdmission` (the closed fps-v2
/// schema, the policy and its bindings, every key access object unwrapped with this KAS's ring),
/// then `meta.keys` against the admitted components and each rendition's init segment (its
/// `tenc` default_KID is the key id the licence route answers for), and the manifests the KAS
/// serves each playback (`manifest.mpd`, `master.m3u8`, every `<rendition>.m3u8`), each bounded
/// and strictly read: playlists by the HLS parser, the MPD as XML whose segment templates name
/// files of a rendition directory.
enum CatalogCMAFReader {
    /// Each playlist and the MPD.
    static let maxManifestFileBytes = HLSLimits.default.maxBytes
    static let maxInitBytes = 1 << 20
    /// The manifests the KAS serves a playback, at most this many.
    static let maxPlaylists = 64

    /// Whether `directory` holds a cmaf package: a `manifest.json` whose `meta.profile` is `cmaf`.
    static func isCMAF(_ directory: String) -> Bool {
        guard let data = try? readFile(directory, "manifest.json", limit: ManifestAdmission.maxManifestBytes),
              let manifest = try? FPSv2Manifest(parsing: data), case .object(let meta)? = manifest.meta
        else { return false }
        return meta["profile"] == .string("cmaf")
    }

    static func read(path: String, title: String, mediaPath: TitlePath,
                     admission: ManifestAdmission?) throws(CatalogError) -> CatalogEntry {
        guard let admission else {
            throw CatalogError("a cmaf package's keys are checked with this KAS's key ring, which cannot be read; "
                               + "run 'kas keys generate' for its data directory first")
        }
        let manifestBytes = try readFile(path, "manifest.json", limit: ManifestAdmission.maxManifestBytes)
        let admitted: AdmittedManifest
        do {
            admitted = try admission.admit(Array(manifestBytes))
        } catch {
            throw CatalogError("'\(path)/manifest.json' is not a manifest this KAS serves keys for (accepted: "
                               + "\(admission.acceptedKAS.sorted().joined(separator: ", "))): \(error.rawValue)")
        }
        guard let manifest = try? FPSv2Manifest(parsing: manifestBytes), let policyBytes = try? Base64.decode(manifest.policy),
              let policy = try? TDFPolicy(parsing: policyBytes)
        else { throw CatalogError("'\(path)/manifest.json' has no readable policy") }
        let keys = try keyList(manifest.meta, admitted: admitted, path: path)

        var manifests: [String: Data] = [:]
        let masterBytes = try readFile(path, "master.m3u8", limit: maxManifestFileBytes)
        let master: HLSMasterPlaylist
        do {
            master = try HLSParser.parseMaster(masterBytes)
        } catch {
            throw CatalogError("'\(path)/master.m3u8' is not a readable master playlist: \(error)")
        }
        manifests["master.m3u8"] = masterBytes
        let playlistNames = master.variants.map(\.uri) + master.renditions.compactMap(\.uri)
        var duration = 0.0
        for name in playlistNames where manifests[name] == nil {
            guard let rendition = PlaybackManifests.renditionName(playlist: name), manifests.count < maxPlaylists else {
                throw CatalogError("'\(path)/master.m3u8' names '\(name.prefix(64))', which is not a playlist of the package")
            }
            let bytes = try readFile(path, name, limit: maxManifestFileBytes)
            let media: HLSMediaPlaylist
            do {
                media = try HLSParser.parseMedia(bytes)
            } catch {
                throw CatalogError("'\(path)/\(name)' is not a readable media playlist: \(error)")
            }
            let uris = media.segments.map(\.uri) + media.segments.compactMap(\.map?.uri)
            guard !media.segments.isEmpty, uris.allSatisfy({ PlaybackManifests.isRenditionFile($0, rendition: rendition) }) else {
                throw CatalogError("'\(path)/\(name)' names a file outside '\(rendition)/'")
            }
            duration = max(duration, media.duration)
            manifests[name] = bytes
        }
        let renditions = Set(playlistNames.compactMap(PlaybackManifests.renditionName(playlist:)))
        for key in keys {
            for rendition in key.renditions {
                guard renditions.contains(rendition) else {
                    throw CatalogError("'\(path)/manifest.json' lists rendition '\(rendition)', which master.m3u8 does not")
                }
                guard try initKeyID(path, rendition) == key.keyID else {
                    throw CatalogError("'\(path)/\(rendition)/init.mp4' is not encrypted under the key id manifest.json lists for it")
                }
            }
        }

        let mpd = try readFile(path, "manifest.mpd", limit: maxManifestFileBytes)
        let templates: [String]
        do {
            templates = try PlaybackManifests.segmentTemplates(mpd)
        } catch {
            throw CatalogError("'\(path)/manifest.mpd' is not a readable MPD: \(error.reason)")
        }
        guard !templates.isEmpty, templates.allSatisfy({ template in
            renditions.contains { PlaybackManifests.isRenditionFile(template, rendition: $0) }
        }) else { throw CatalogError("'\(path)/manifest.mpd' names a segment template outside the package's renditions") }
        manifests["manifest.mpd"] = mpd

        return CatalogEntry(assetID: admitted.policyUUID.lowercased(), title: title, duration: duration, profile: .cmaf,
                            components: admitted.components.map(\.id), mediaPath: mediaPath,
                            policyJSON: JSONWriter.write(policy.jsonValue, options: [.sortedKeys]), manifest: manifestBytes,
                            keyIDs: keys.map { CatalogKeyID(component: $0.component, keyID: $0.keyID) }, manifests: manifests,
                            subtitles: CatalogSubtitle.renditions(of: master))
    }

    /// `meta.keys`: exactly the admitted components in order, each `{component, kid, renditions}`.
    private static func keyList(_ meta: JSONValue?, admitted: AdmittedManifest,
                                path: String) throws(CatalogError) -> [(component: String, keyID: Data, renditions: [String])] {
        let failure = CatalogError("'\(path)/manifest.json' has no readable meta.keys (profile cmaf, version 1)")
        guard case .object(let object)? = meta, object["profile"] == .string("cmaf"),
              object["profileVersion"] == .number(JSONNumber(Int64(1))),
              case .array(let items)? = object["keys"], items.count == admitted.components.count
        else { throw failure }
        var keys: [(component: String, keyID: Data, renditions: [String])] = []
        for (item, component) in zip(items, admitted.components) {
            guard case .object(let key) = item, key.members.count == 3, key["component"] == .string(component.id),
                  case .string(let kid)? = key["kid"], CanonicalUUID.isCanonical(kid),
                  let bytes = try? Hex.decode(kid.replacingOccurrences(of: "-", with: "")), bytes.count == 16,
                  case .array(let names)? = key["renditions"], !names.isEmpty
            else { throw failure }
            let renditions = names.compactMap(\.string)
            guard renditions.count == names.count, renditions.allSatisfy({ TitlePath.isValidName(Substring($0)) }) else { throw failure }
            keys.append((component.id, Data(bytes), renditions))
        }
        guard Set(keys.map(\.keyID)).count == keys.count else { throw failure }
        return keys
    }

    /// The `tenc` default_KID of `<rendition>/init.mp4` (its one track's one protected sample entry).
    private static func initKeyID(_ path: String, _ rendition: String) throws(CatalogError) -> Data {
        let name = rendition + "/init.mp4"
        let bytes = try readFile(path, name, limit: maxInitBytes)
        let failure = CatalogError("'\(path)/\(name)' is not a protected init segment")
        guard let boxes = try? BoxParser.parse(Array(bytes)) else { throw failure }
        let movies = boxes.compactMap { $0 as? MovieBox }
        guard movies.count == 1, let tracks = movies.first?.tracks, tracks.count == 1,
              let entries = tracks.first?.media?.mediaInformation?.sampleTable?.sampleDescription?.children.boxes,
              entries.count == 1, let entry = entries.first
        else { throw failure }
        let sinfs = (entry as? VisualSampleEntry)?.children.all(ProtectionSchemeInfoBox.self)
            ?? (entry as? AudioSampleEntry)?.children.all(ProtectionSchemeInfoBox.self) ?? []
        guard sinfs.count == 1, let tenc = sinfs.first?.schemeInformation?.trackEncryption, tenc.defaultKID.count == 16 else {
            throw failure
        }
        return Data(tenc.defaultKID)
    }

    /// A file of the package directory, at most `limit` bytes; only names of the package are followed.
    static func readFile(_ directory: String, _ name: String, limit: Int) throws(CatalogError) -> Data {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ TitlePath.isValidName($0) }) else {
            throw CatalogError("'\(directory)' names '\(name.prefix(64))', which is not a file of the package directory")
        }
        let file = (directory as NSString).appendingPathComponent(name)
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
        guard let size else { throw CatalogError("cannot read '\(file)'") }
        guard size <= limit else { throw CatalogError("'\(file)' is larger than \(limit) bytes") }
        guard let data = FileManager.default.contents(atPath: file), data.count <= limit else {
            throw CatalogError("cannot read '\(file)'")
        }
        return data
    }
}
