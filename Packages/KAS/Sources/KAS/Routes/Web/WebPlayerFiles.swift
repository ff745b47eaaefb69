import Foundation
import KASDomain
import KASHTTP
import KASObservability
import MediaDRMCrypto
import MediaDRMEncoding

/// The web player's files (`Packages/WebPlayer/player`, docs/web.md), read once at start-up and
/// served from memory. Only flat names of lower-case letters, digits and '-' with a known
/// extension are taken, so nothing else in the directory (or outside it) can be served.
package struct WebPlayerFiles: Sendable {
    public struct File: Sendable {
        public let body: Data
        public let contentType: String
        /// A strong validator: the first 16 bytes of the body's SHA-256, hex, quoted.
        public let etag: String
    }

    static let contentTypes = [
        "js": "text/javascript; charset=utf-8",
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        // refusals.json: the refusal codes' words the viewer page loads (docs/web.md).
        "json": "application/json; charset=utf-8",
    ]
    static let maxFileBytes = 1 << 20
    static let maxFiles = 64

    public let directory: String
    let files: [String: File]

    /// The directory holding `mediadrm-player.js`: `root` when configured, else the first of
    /// `<kas binary's directory>/player`, `<kas binary's directory>/../share/mediadrm/player`
    /// and the source tree the binary was built from.
    public static func locate(root: String?) -> String? {
        if let root { return root }
        // The running binary itself (/proc/self/exe on Linux), not argv[0], which is only a name
        // when `kas` was found on PATH.
        let executable = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? ""))
            .resolvingSymlinksInPath()
        let binaryDirectory = executable.deletingLastPathComponent()
        let source = URL(fileURLWithPath: #filePath)   // Packages/KAS/Sources/KAS/Routes/Web/WebPlayerFiles.swift
            .deletingLastPathComponent().appendingPathComponent("../../../../../WebPlayer/player").standardized
        let candidates = [binaryDirectory.appendingPathComponent("player"),
                          binaryDirectory.appendingPathComponent("../share/mediadrm/player").standardized, source]
        return candidates.map(\.path).first {
            FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("mediadrm-player.js"))
        }
    }

    /// Reads every servable file of `directory`; throws a message naming the directory when it
    /// has no `mediadrm-player.js` or a file is too large.
    public init(directory: String) throws(KASApplicationError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw KASApplicationError("the web player directory '\(directory)' cannot be read (set web.root, or web.enabled false)")
        }
        var files: [String: File] = [:]
        for name in names.sorted() {
            guard let type = Self.contentType(of: name) else { continue }
            guard files.count < Self.maxFiles else { throw KASApplicationError("the web player directory '\(directory)' has more than \(Self.maxFiles) files") }
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path), data.count <= Self.maxFileBytes else {
                throw KASApplicationError("the web player file '\(path)' cannot be read or is larger than 1 MiB")
            }
            files[name] = File(body: data, contentType: type,
                               etag: "\"" + Hex.encode(SHA256Digest.hash(data: data).prefix(16)) + "\"")
        }
        guard files["mediadrm-player.js"] != nil else {
            throw KASApplicationError("the web player directory '\(directory)' has no mediadrm-player.js (set web.root, or web.enabled false)")
        }
        self.directory = directory
        self.files = files
    }

    /// The content type of a servable name, nil for any other name.
    static func contentType(of name: String) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty,
              parts[0].utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else { return nil }
        return contentTypes[String(parts[1])]
    }

    public func file(named name: String) -> File? { files[name] }
}

extension WebPlayerFiles {
    /// The files `kas serve` serves: nil when `web.enabled` is false; an error naming what to set
    /// when they cannot be found.
    static func load(_ settings: KASConfiguration.WebSettings) throws(KASApplicationError) -> WebPlayerFiles? {
        guard settings.enabled else { return nil }
        guard let directory = locate(root: settings.root) else {
            throw KASApplicationError("the web player files were not found beside the kas binary or in its source tree (set web.root to the directory holding mediadrm-player.js, or web.enabled false)")
        }
        return try WebPlayerFiles(directory: directory)
    }
}
