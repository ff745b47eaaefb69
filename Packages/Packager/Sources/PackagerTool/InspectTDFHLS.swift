import Foundation
import MediaDRMHLS
import MediaDRMMedia
import MediaDRMTDF
import MediaDRMToolSupport
import Packager

/// `packager inspect` of a tdf-hls stream directory (docs/formats.md): the renditions and their
/// segment counts, the policy uuid and media rules of the first segment (every segment carries
/// the same policy), and which KAS route serves its keys (docs/protocol.md): the OpenTDF rewrap
/// for a policy without `arkavo:media`, the media rewrap through a media session otherwise.
/// No key or network request; only the playlists and the first segment are read.
struct TDFHLSInspectSummary: Encodable {
    struct Rendition: Encodable {
        var playlist: String
        var segments: Int
    }

    var package: String
    var format = "tdf-hls"
    var policyUUID: String
    var mediaRules: Bool
    var renditions: [Rendition]
    var keyRoute: String

    static let masterName = "master.m3u8"
    static let maximumPlaylistBytes = 1 << 20
    static let maximumSegmentBytes = 64 << 20
    static let openTDFRoute = "POST /kas/v2/rewrap"
    static let mediaRoute = "POST " + MediaRewrapBody.path

    /// Whether `path` is a tdf-hls stream directory rather than an fps-v2 package.
    static func isStream(_ path: String) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: (path as NSString).appendingPathComponent(masterName))
            && !manager.fileExists(atPath: (path as NSString).appendingPathComponent("manifest.json"))
    }

    init(directory: String) throws(ToolFailure) {
        package = directory
        let master: HLSMasterPlaylist
        do {
            master = try HLSParser.parseMaster(try Self.read(directory, Self.masterName, maxBytes: Self.maximumPlaylistBytes))
        } catch let failure as ToolFailure {
            throw failure
        } catch {
            throw ToolFailure("'\(directory)/\(Self.masterName)' is not an HLS master playlist")
        }
        guard master.otherTags.contains(where: { $0.name == "EXT-X-SESSION-DATA"
                && ($0.value ?? "").contains("DATA-ID=\"\(TDFHLSPackager.sessionDataID)\"") }) else {
            throw ToolFailure("'\(directory)/\(Self.masterName)' does not carry the tdf-hls profile marker")
        }
        let playlists = master.variants.map(\.uri) + master.renditions.compactMap(\.uri)
        var renditions: [Rendition] = []
        var firstSegment: String?
        for name in playlists {
            let media: HLSMediaPlaylist
            do {
                media = try HLSParser.parseMedia(try Self.read(directory, name, maxBytes: Self.maximumPlaylistBytes))
            } catch let failure as ToolFailure {
                throw failure
            } catch {
                throw ToolFailure("'\(name)' is not an HLS media playlist")
            }
            firstSegment = firstSegment ?? media.segments.first?.uri
            renditions.append(Rendition(playlist: name, segments: media.segments.count))
        }
        self.renditions = renditions
        guard let firstSegment else { throw ToolFailure("the stream has no segment") }
        let policy: TDFPolicy
        do {
            let reader = try TDFArchiveReader(data: try Self.read(directory, firstSegment, maxBytes: Self.maximumSegmentBytes))
            policy = try TDFPolicy(base64: reader.manifest.encryptionInformation.policy)
        } catch let failure as ToolFailure {
            throw failure
        } catch {
            throw ToolFailure("the first segment '\(firstSegment)' is not a Standard TDF with a readable policy")
        }
        policyUUID = policy.uuid
        mediaRules = policy.media != nil
        keyRoute = mediaRules ? Self.mediaRoute : Self.openTDFRoute
    }

    /// A file named by a playlist: a plain name in the stream directory (never a path or URL).
    private static func read(_ directory: String, _ name: String, maxBytes: Int) throws -> Data {
        guard !name.isEmpty, !name.contains("/"), !name.contains("\\"), !name.hasPrefix(".") else {
            throw ToolFailure("'\(name)' is not a file name inside the stream directory")
        }
        let path = (directory as NSString).appendingPathComponent(name)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
            throw ToolFailure("cannot read '\(path)'")
        }
        guard size <= maxBytes else { throw ToolFailure("'\(path)' is larger than \(maxBytes) bytes") }
        guard let data = FileManager.default.contents(atPath: path) else { throw ToolFailure("cannot read '\(path)'") }
        return data
    }

    func print(to console: Console) {
        console.print("package: \(package) (tdf-hls stream)")
        console.print("policy uuid: \(policyUUID)")
        for rendition in renditions { console.print("rendition: \(rendition.playlist), \(rendition.segments) segments") }
        console.print("media rules: \(mediaRules ? "yes (arkavo:media)" : "none")")
        console.print("key route: \(keyRoute)" + (mediaRules ? " through a media session" : " (OpenTDF bulk rewrap)"))
    }
}
