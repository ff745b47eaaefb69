import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMToolSupport

/// `kas assets add | list | remove`: the catalog the delivery routes serve (docs/delivery.md#catalog).
enum AssetsCommand {
    static var tool: Tool {
        Tool(name: "kas assets", version: KASCommand.version,
             summary: """
             Manage the catalog in <data-dir>/media.sqlite, or in the Redis that store.url names (--config, \
             KAS_STORE_URL): each asset (a package's policy uuid) with its title, duration, profile, \
             components and the path the origin serves it at.
             """,
             verbs: [add, list, remove])
    }

    static var add: ToolVerb {
        ToolVerb("add", summary: "Catalog a package: read it with the players' readers and record where the origin serves it.",
                 discussion: """
                 PACKAGE is an fps-v2 file or directory, a tdf-hls directory (holding master.m3u8), a cmaf \
                 directory (packager --profile cmaf; its keys are unwrapped with this KAS's key ring), or the \
                 http(s) URL of an fps-v2 or tdf-hls package (a tdf-hls master.m3u8 or its directory with a \
                 trailing /). The package must name a key service this KAS accepts (acceptedKASURLs, from \
                 --config, KAS_* variables or --public-url, as for 'kas serve'). --path is where the origin \
                 serves it, one entry directly under its root: /NAME for an fps-v2 file, /NAME/ for a directory; \
                 one signed URL covers that prefix. An fps-v2 file also gets its HLS and DASH views, byte ranges \
                 of the file that standard players read (docs/formats.md). Adding an asset again replaces its entry. \
                 Each title has a short media id (8 letters and digits) accepted wherever an asset id is: \
                 --media-id chooses it, else adding again keeps the one it has and a new title draws one. Adding again \
                 also keeps the description (unless --description gives another) and the date the title was first \
                 catalogued (the delivery API's pubdate). --poster-from makes poster frames (JPEG, 320, 640 and 1280 \
                 wide) with ffmpeg from a clear video of the title and writes them where the origin serves them: \
                 a directory package's own directory, or NAME.posters/ beside an fps-v2 file; adding again keeps them. \
                 Prints the \
                 asset id. A live tdf-hls directory (packager live) is added with --live and its event: keys \
                 only from --starts-at until --ends-at plus media.liveDVRSeconds, none in --blackout-regions.
                 """,
                 options: [
                    ToolOption.single("path", valueName: "/name", help: "Where the origin serves the package.", required: true),
                    ToolOption.single("title", valueName: "text", help: "The title. Default: the package's file name."),
                    ToolOption.single("media-id", valueName: "id",
                                      help: "The title's short id: 8 letters and digits. Default: the one it has, else a random one."),
                    ToolOption.single("description", valueName: "text",
                                      help: "What the title is about (at most \(CatalogEntry.maxDescriptionBytes) bytes). Default: the one it has, else none."),
                    ToolOption.single("poster-from", valueName: "video",
                                      help: "A clear video of the title to make its poster frames from (ffmpeg; MEDIADRM_FFMPEG)."),
                    configOption,
                    ToolOption.single("public-url", valueName: "url", help: "The KAS's public URL (the accepted key service)."),
                    CommonOptions.dataDirectory,
                 ] + LiveEventOptions.options,
                 arguments: [ToolArgument("package", help: "The package file, directory or URL.")]) { parsed, console in
            let package = try parsed.requiredArgument("package")
            let pathText = try parsed.requiredValue("path")
            let mediaPath: TitlePath
            do throws(TitlePathError) {
                mediaPath = try TitlePath(pathText)
            } catch {
                throw UsageError("invalid value '\(pathText)' for '--path': \(error)")
            }
            if let title = parsed.value("title"), title.isEmpty || title.utf8.count > 256 {
                throw UsageError("invalid value for '--title': expected 1 to 256 bytes of text")
            }
            let posterSource = parsed.value("poster-from")
            if posterSource != nil, package.lowercased().hasPrefix("http://") || package.lowercased().hasPrefix("https://") {
                throw UsageError("--poster-from writes beside a local package; PACKAGE is a URL")
            }
            let description = parsed.value("description")
            if let description, description.utf8.count > CatalogEntry.maxDescriptionBytes {
                throw UsageError("invalid value for '--description': expected at most \(CatalogEntry.maxDescriptionBytes) bytes of text")
            }
            let chosenMediaID = try parsed.value("media-id").map { text in
                guard let id = MediaID(text) else {
                    throw UsageError("invalid value '\(text.prefix(64))' for '--media-id': expected 8 letters and digits (A-Z, a-z, 0-9)")
                }
                return id
            }
            let live = try LiveEventOptions.event(parsed)
            let configuration = try loadConfiguration(parsed)
            var entry: CatalogEntry
            do throws(CatalogError) {
                entry = try CatalogPackageReader.read(location: package, title: parsed.value("title"), mediaPath: mediaPath,
                                                      acceptedKASURLs: configuration.acceptedKASURLs,
                                                      admission: keyAdmission(configuration), live: live)
            } catch {
                throw ToolFailure(error.reason)
            }
            let stores = try openStores(configuration)
            defer { stores.close() }
            // A title added again keeps its media id, so the links that name it keep working, and
            // its description and first catalogued date.
            let kept: CatalogEntry?
            do throws(StoreError) {
                kept = try stores.catalog.entry(assetID: entry.assetID)
            } catch {
                throw ToolFailure("cannot read the catalog: \(error.reason)")
            }
            entry.mediaID = try chosenMediaID ?? kept?.mediaID ?? MediaID.random()
            entry.description = description ?? kept?.description ?? ""
            entry.publishedAt = kept?.publishedAt
            entry.posterPath = kept?.posterPath
            if let source = posterSource {
                do throws(CatalogError) {
                    let directory = try CatalogPosters.directory(package: package, mediaPath: mediaPath)
                    try CatalogPosters.make(from: source, into: directory, ffmpeg: CatalogPosters.ffmpeg)
                    entry.posterPath = try CatalogPosters.path(for: mediaPath)
                    console.progress("poster frames in \(directory), served at \(entry.posterPath?.prefix ?? "")")
                } catch {
                    throw ToolFailure(error.reason)
                }
            }
            do throws(StoreError) {
                try stores.catalog.put(entry)
            } catch {
                guard error.code == .constraint else { throw ToolFailure("cannot write the catalog: \(error.reason)") }
                throw ToolFailure(error.reason == CatalogConflict.mediaID
                    ? "another asset already has the media id '\(entry.mediaID?.text ?? "")'; choose another --media-id"
                    : "another asset is already served at '\(mediaPath)'; remove it first ('kas assets remove') or choose another --path")
            }
            console.progress("catalogued \(entry.live == nil ? "" : "live ")\(entry.profile.rawValue) '\(entry.title)' (\(entry.components.joined(separator: ", ")), "
                             + "\(Int(entry.duration.rounded())) s) at \(mediaPath), media id \(entry.mediaID?.text ?? "")")
            console.print(entry.assetID)
        }
    }

    static var list: ToolVerb {
        ToolVerb("list", summary: "List the catalog: asset id, profile, duration, path and title, one per line (--json: with the media id).",
                 options: [configOption, CommonOptions.dataDirectory, ToolOption.json]) { parsed, console in
            let stores = try openStores(try loadConfiguration(parsed))
            defer { stores.close() }
            let entries: [CatalogEntry]
            do throws(StoreError) {
                entries = try stores.catalog.entries()
            } catch {
                throw ToolFailure("cannot read the catalog: \(error.reason)")
            }
            if parsed.flag("json") {
                let items: [JSONValue] = entries.map { entry in
                    .object(JSONObject([
                        ("assetId", .string(entry.assetID)), ("mediaId", entry.mediaID.map { .string($0.text) } ?? .null),
                        ("title", .string(entry.title)),
                        ("duration", .number(JSONNumber(entry.duration))), ("profile", .string(entry.profile.rawValue)),
                        ("components", .array(entry.components.map(JSONValue.string))), ("path", .string(entry.mediaPath.prefix)),
                    ] + (entry.live.map { [("live", $0.jsonValue)] } ?? [])))
                }
                console.write(JSONWriter.write(.array(items), options: [.prettyPrinted]) + Data("\n".utf8))
                return
            }
            for entry in entries {
                console.print("\(entry.assetID) \(entry.profile.rawValue) \(Int(entry.duration.rounded()))s \(entry.mediaPath) \(entry.title)")
            }
        }
    }

    static var remove: ToolVerb {
        ToolVerb("remove", summary: "Remove an asset from the catalog (the package files stay where they are).",
                 options: [configOption, CommonOptions.dataDirectory],
                 arguments: [ToolArgument("asset", help: "The asset id (policy uuid) or media id.")]) { parsed, console in
            let asset = try parsed.requiredArgument("asset")
            let stores = try openStores(try loadConfiguration(parsed))
            defer { stores.close() }
            let removed: Bool
            do throws(StoreError) {
                if let mediaID = MediaID(asset) {
                    let named = try stores.catalog.entry(mediaID: mediaID)
                    removed = try named.map { entry throws(StoreError) in try stores.catalog.remove(assetID: entry.assetID) } ?? false
                } else {
                    removed = try stores.catalog.remove(assetID: asset)
                }
            } catch {
                throw ToolFailure("cannot write the catalog: \(error.reason)")
            }
            guard removed else { throw ToolFailure("no asset '\(asset.prefix(64))' in the catalog; 'kas assets list' shows them") }
            console.progress("removed \(asset)")
        }
    }

    /// The configuration as `kas serve` would load it (file, environment, the given flags).
    static func loadConfiguration(_ parsed: ParsedArguments, originURL: String? = nil,
                                  deliverySecretFile: String? = nil) throws -> KASConfiguration {
        let environment = ProcessInfo.processInfo.environment
        do throws(KASConfigurationError) {
            let flags = try KASConfiguration.flagOverrides(dataDirectory: parsed.value("data-dir"), publicURL: parsed.value("public-url"),
                                                           deliverySecretFile: deliverySecretFile)
            return try KASConfiguration.load(configFile: parsed.value("config"), environment: environment, flags: flags)
        } catch {
            throw ToolFailure(error.reason)
        }
    }

    /// The key path's manifest admission with this KAS's key ring (a cmaf package's keys are
    /// checked with it); nil when the ring cannot be read.
    static func keyAdmission(_ configuration: KASConfiguration) -> ManifestAdmission? {
        let environment = ProcessInfo.processInfo.environment
        let sealKey = (try? KeyRingSealKey.resolve(file: configuration.keyRingSealKeyFile, environment: environment)) ?? nil
        guard let ring = try? KeyRing.load(dataDirectory: configuration.keyRingHome, sealKey: sealKey) else { return nil }
        return ManifestAdmission(acceptedKASURLs: configuration.acceptedKASURLs, unwrapper: KeyRingMediaUnwrapper(KeyRingHolder(ring)))
    }

    static let configOption = ToolOption.single("config", valueName: "file", help: "The JSON configuration file of 'kas serve'.")

    /// The stores `kas serve` would use (`KASStateStores`): the data directory's files, which must
    /// exist ('kas serve' or 'kas keys generate' made the directory), or the configured Redis.
    static func openStores(_ configuration: KASConfiguration) throws -> KASStateStores {
        let dataDirectory = configuration.dataDirectory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ToolFailure("the data directory '\(dataDirectory)' does not exist; run 'kas keys generate --data-dir \(dataDirectory)' first")
        }
        do throws(KASApplicationError) {
            return try KASStateStores.open(configuration, layout: KASDataDirectory(dataDirectory), poolSize: 1)
        } catch {
            throw ToolFailure(error.reason)
        }
    }
}
