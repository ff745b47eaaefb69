import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MediaDRMHLS

/// `kas assets add URL`: what the catalog reads of a published package, fetched into a local
/// directory for `CatalogPackageReader`: the whole fps-v2 file (streamed to disk), or a tdf-hls
/// master, its media playlists and each playlist's first segment (the siblings with the master
/// URL's query, as players fetch them under one signed prefix). An operator tool, not key
/// traffic: URLSession with the system's trust store; an answer from another URL than asked
/// (a redirect) or any status but 200 is refused.
enum CatalogPackageDownload {
    /// The local file or directory holding what was fetched, inside `directory`.
    static func fetch(_ text: String, into directory: String) throws(CatalogError) -> String {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", components.host != nil, components.user == nil
        else { throw CatalogError("'\(redacted(text))' is not an http(s) URL of a package") }
        let path = components.path
        if path.hasSuffix("/") { components.path = path + "master.m3u8" }
        guard let url = components.url else { throw CatalogError("'\(redacted(text))' is not a usable URL") }
        try create(directory)
        if components.path.hasSuffix(".m3u8") {
            let local = (directory as NSString).appendingPathComponent("package")
            try create(local)
            let master = try download(url, to: local + "/master.m3u8")
            let playlist: HLSMasterPlaylist
            do {
                playlist = try HLSParser.parseMaster(master)
            } catch {
                throw CatalogError("\(redacted(text)) is not a master playlist: \(error)")
            }
            for uri in playlist.variants.map(\.uri) + playlist.renditions.compactMap(\.uri) {
                let media = try download(try sibling(uri, of: components), to: try localName(uri, in: local))
                let segments: HLSMediaPlaylist
                do {
                    segments = try HLSParser.parseMedia(media)
                } catch {
                    throw CatalogError("\(uri.prefix(64)) is not a media playlist: \(error)")
                }
                if let first = segments.segments.first?.uri {
                    try download(try sibling(first, of: components), to: try localName(first, in: local), keep: false)
                }
            }
            return local
        }
        let name = (components.path as NSString).lastPathComponent
        let local = (directory as NSString).appendingPathComponent(name.isEmpty ? "package.tdf" : name)
        _ = try download(url, to: local, keep: false)
        return local
    }

    /// A relative name of the package directory, resolved next to the master, with its query.
    private static func sibling(_ uri: String, of master: URLComponents) throws(CatalogError) -> URL {
        var components = master
        let directory = (master.path as NSString).deletingLastPathComponent
        components.path = (directory.hasSuffix("/") ? directory : directory + "/") + uri
        guard isPlainName(uri), let url = components.url else {
            throw CatalogError("the playlist names '\(uri.prefix(64))', which is not a file beside it")
        }
        return url
    }

    private static func localName(_ uri: String, in directory: String) throws(CatalogError) -> String {
        guard isPlainName(uri) else { throw CatalogError("the playlist names '\(uri.prefix(64))', which is not a file beside it") }
        return (directory as NSString).appendingPathComponent(uri)
    }

    private static func isPlainName(_ uri: String) -> Bool {
        !uri.isEmpty && !uri.contains("/") && !uri.contains("..") && !uri.contains(":") && !uri.contains("?")
    }

    private static func create(_ directory: String) throws(CatalogError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CatalogError("cannot create '\(directory)'")
        }
    }

    /// GETs `url` into the file `path`; returns its bytes (a playlist, read only when it is within
    /// the HLS parser's byte limit) unless `keep` is false (a package or a segment, left on disk).
    @discardableResult
    private static func download(_ url: URL, to path: String, keep: Bool = true) throws(CatalogError) -> Data {
        let done = DispatchSemaphore(value: 0)
        let outcome = DownloadOutcome()
        let task = URLSession.shared.downloadTask(with: url) { file, response, error in
            outcome.finish(file: file, response: response, error: error, destination: path)
            done.signal()
        }
        task.resume()
        done.wait()
        let shown = redacted(url.absoluteString)
        if let failure = outcome.failure { throw CatalogError("cannot fetch \(shown): \(failure)") }
        guard let response = outcome.response as? HTTPURLResponse else { throw CatalogError("cannot fetch \(shown)") }
        guard response.statusCode == 200 else { throw CatalogError("\(shown) answered HTTP \(response.statusCode)") }
        guard response.url.map({ $0.absoluteString == url.absoluteString }) ?? true else {
            throw CatalogError("\(shown) redirected elsewhere; give the package's own URL")
        }
        guard keep else { return Data() }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= HLSLimits.default.maxBytes else {
            throw CatalogError("\(shown) is larger than a playlist may be (\(HLSLimits.default.maxBytes) bytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CatalogError("cannot read what \(shown) answered") }
        return data
    }

    /// A URL as messages show it: without its query, where signed URLs keep their secrets.
    static func redacted(_ text: String) -> String {
        String(text.prefix { $0 != "?" }.prefix(200))
    }
}

/// One download's result, handed from URLSession's queue to the waiting caller; the file is
/// moved into place on that queue, before URLSession deletes it.
private final class DownloadOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var storedResponse: URLResponse?
    private var storedFailure: String?

    func finish(file: URL?, response: URLResponse?, error: (any Error)?, destination: String) {
        var failure: String?
        if let error {
            failure = (error as? URLError).map { "\($0.code)" } ?? "the transfer failed"
        } else if let file {
            try? FileManager.default.removeItem(atPath: destination)
            do {
                try FileManager.default.moveItem(atPath: file.path, toPath: destination)
            } catch {
                failure = "cannot store the download"
            }
        }
        lock.withLock {
            storedResponse = response
            storedFailure = failure
        }
    }

    var response: URLResponse? { lock.withLock { storedResponse } }
    var failure: String? { lock.withLock { storedFailure } }
}
