import Foundation
import MediaDRMFPSv2
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF

/// Reads a package the way players do, to catalog it: an fps-v2 archive or directory through
/// the fps-v2 reader (every admission check, for the key services this KAS accepts), a tdf-hls
/// directory through its master and media playlists and its first segment's TDF manifest, a cmaf
/// directory through `CatalogCMAFReader` (its keys unwrapped by `admission`, this KAS's ring).
/// A live tdf-hls directory (`packager live`, its segments' policies carrying `livePeriod`) is
/// read the same way and catalogued only with its event (`live`, `kas assets add --live`).
package enum CatalogPackageReader {
    /// The catalog entry for the package at `location`: a local file or directory, or an
    /// http(s) URL (`CatalogPackageDownload` fetches what is read into a temporary directory).
    public static func read(location: String, title: String?, mediaPath: TitlePath,
                            acceptedKASURLs: [String], admission: ManifestAdmission? = nil,
                            live: CatalogLiveEvent? = nil) throws(CatalogError) -> CatalogEntry {
        let lowered = location.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            return try read(path: location, title: title, mediaPath: mediaPath, acceptedKASURLs: acceptedKASURLs,
                            admission: admission, live: live)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("kas-assets-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let local = try CatalogPackageDownload.fetch(location, into: scratch)
        // The title defaults to the package's name in the URL: the file, or the master's directory.
        var path = URLComponents(string: location)?.path ?? ""
        if path.hasSuffix("/master.m3u8") { path = (path as NSString).deletingLastPathComponent }
        let name = (path as NSString).lastPathComponent
        return try read(path: local, title: title ?? (name.isEmpty || name == "/" ? nil : defaultName(name)),
                        mediaPath: mediaPath, acceptedKASURLs: acceptedKASURLs, live: live)
    }

    /// The catalog entry for the package at `path` (a local file or directory).
    public static func read(path: String, title: String?, mediaPath: TitlePath,
                            acceptedKASURLs: [String], admission: ManifestAdmission? = nil,
                            live: CatalogLiveEvent? = nil) throws(CatalogError) -> CatalogEntry {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CatalogError("the package '\(path)' does not exist")
        }
        let master = (path as NSString).appendingPathComponent("master.m3u8")
        let profile: CatalogProfile =
            !isDirectory.boolValue ? .fpsV2
            : CatalogCMAFReader.isCMAF(path) ? .cmaf
            : FileManager.default.fileExists(atPath: master) && !isFPSv2Directory(path) ? .tdfHLS : .fpsV2
        guard mediaPath.isDirectory == (profile != .fpsV2) else {
            throw CatalogError(profile != .fpsV2
                ? "'\(path)' is a \(profile.rawValue) directory: its --path must end with '/' (for example /\(defaultName(path))/)"
                : "'\(path)' is an fps-v2 package: its --path names a file, without a trailing '/' (for example /\(defaultName(path)))")
        }
        guard live == nil || profile == .tdfHLS else {
            throw CatalogError("'\(path)' is a \(profile.rawValue) package: --live takes a live tdf-hls directory (packager live)")
        }
        let name = title ?? defaultName(path)
        switch profile {
        case .fpsV2: return try readFPSv2(path: path, title: name, mediaPath: mediaPath, acceptedKASURLs: acceptedKASURLs)
        case .tdfHLS:
            var entry = try readTDFHLS(path: path, title: name, mediaPath: mediaPath, acceptedKASURLs: acceptedKASURLs)
            let isLive = (try? TDFPolicy(parsing: entry.policyJSON))?.media
                .flatMap { try? MediaRules(json: $0) }?.livePeriod != nil
            switch (isLive, live) {
            case (true, nil):
                throw CatalogError("'\(path)' is a live stream (its segments carry livePeriod): add it with --live")
            case (false, .some):
                throw CatalogError("'\(path)' is not a live stream (its segments carry no livePeriod): package it with 'packager live', or add it without --live")
            default:
                entry.live = live
                return entry
            }
        case .cmaf: return try CatalogCMAFReader.read(path: path, title: name, mediaPath: mediaPath, admission: admission)
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// An fps-v2 directory holds `manifest.json` beside its playlists.
    private static func isFPSv2Directory(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("manifest.json"))
    }

    /// The file or directory name without `.tdf`: the title when none is given.
    static func defaultName(_ path: String) -> String {
        let last = (path as NSString).lastPathComponent
        return last.hasSuffix(".tdf") ? String(last.dropLast(4)) : last
    }

    private static func readFPSv2(path: String, title: String, mediaPath: TitlePath,
                                  acceptedKASURLs: [String]) throws(CatalogError) -> CatalogEntry {
        let admitted: FPSv2AdmittedPackage
        do {
            admitted = try FPSv2Admission.admit(try FPSv2Package(path: path),
                                                options: FPSv2Admission.Options(acceptedKeyServiceURLs: acceptedKASURLs))
        } catch {
            throw CatalogError("'\(path)' is not an fps-v2 package this KAS serves keys for (accepted: "
                               + "\(acceptedKASURLs.joined(separator: ", "))): \(error.reason)")
        }
        let policy = admitted.policy
        // A `.tdf` file gets its HLS and DASH views (`FPSv2Views`); a directory is no one file to address.
        let views = try isDirectory(path) ? [:] : FPSv2Views.make(admitted)
        return CatalogEntry(assetID: admitted.policyUUID.lowercased(), title: title, duration: admitted.duration,
                            profile: .fpsV2, components: admitted.components.map(\.id), mediaPath: mediaPath,
                            policyJSON: JSONWriter.write(policy.jsonValue, options: [.sortedKeys]),
                            manifest: admitted.manifestBytes,
                            keyIDs: admitted.components.map { CatalogKeyID(component: $0.id, keyID: $0.defaultKID) },
                            manifests: views)
    }

    private static func readTDFHLS(path: String, title: String, mediaPath: TitlePath,
                                   acceptedKASURLs: [String]) throws(CatalogError) -> CatalogEntry {
        let masterPlaylist: HLSMasterPlaylist
        do {
            masterPlaylist = try HLSParser.parseMaster(try readFile(path, "master.m3u8"))
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError("'\(path)/master.m3u8' is not a readable master playlist: \(error)")
        }
        var playlists = masterPlaylist.variants.map(\.uri)
        playlists += masterPlaylist.renditions.compactMap(\.uri)
        var components: [String] = []
        var duration = 0.0
        var policy: TDFPolicy?
        for uri in playlists where !components.contains(componentID(uri)) {
            let media: HLSMediaPlaylist
            do {
                media = try HLSParser.parseMedia(try readFile(path, uri))
            } catch let error as CatalogError {
                throw error
            } catch {
                throw CatalogError("'\(path)/\(uri)' is not a readable media playlist: \(error)")
            }
            components.append(componentID(uri))
            duration = max(duration, media.duration)
            guard policy == nil, let first = media.segments.first?.uri else { continue }
            let reader: TDFArchiveReader
            do {
                reader = try TDFArchiveReader(data: try readFile(path, first))
            } catch let error as CatalogError {
                throw error
            } catch {
                throw CatalogError("'\(path)/\(first)' is not a readable TDF segment: \(error)")
            }
            let kasURLs = reader.manifest.encryptionInformation.keyAccess.map(\.url)
            guard kasURLs.allSatisfy({ url in acceptedKASURLs.contains { same($0, url) } }) else {
                throw CatalogError("'\(path)' was packaged for another key service (\(kasURLs.joined(separator: ", "))); "
                                   + "this KAS accepts \(acceptedKASURLs.joined(separator: ", ")) (acceptedKASURLs)")
            }
            policy = reader.policy
        }
        guard let policy, !components.isEmpty else {
            throw CatalogError("'\(path)' has no media segments to read a policy from")
        }
        return CatalogEntry(assetID: policy.uuid.lowercased(), title: title, duration: duration, profile: .tdfHLS,
                            components: components, mediaPath: mediaPath,
                            policyJSON: JSONWriter.write(policy.jsonValue, options: [.sortedKeys]), manifest: nil,
                            subtitles: CatalogSubtitle.renditions(of: masterPlaylist))
    }

    /// `video.m3u8` -> `video`.
    private static func componentID(_ uri: String) -> String {
        let name = (uri as NSString).lastPathComponent
        return name.hasSuffix(".m3u8") ? String(name.dropLast(5)) : name
    }

    private static func same(_ a: String, _ b: String) -> Bool {
        KeyServiceURL.normalize(a).map { $0 == KeyServiceURL.normalize(b) } ?? false
    }

    /// A file of the package directory; only plain relative names (no `..`, no URL) are followed.
    private static func readFile(_ directory: String, _ name: String) throws(CatalogError) -> Data {
        guard !name.isEmpty, !name.contains(".."), !name.hasPrefix("/"), !name.contains(":") else {
            throw CatalogError("'\(directory)' names '\(name.prefix(64))', which is not a file of the package directory")
        }
        let file = (directory as NSString).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CatalogError("cannot read '\(file)'")
        }
        return data
    }
}

/// A catalog operation that failed; the reason names the package, path or asset and what to do.
package struct CatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
