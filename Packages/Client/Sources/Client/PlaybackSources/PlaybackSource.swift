import Foundation

/// What a playback reads.
public enum PlaybackSource: Sendable, Equatable {
    /// An fps-v2 package file (stored ZIP).
    case packageFile(String)
    /// An fps-v2 package unpacked as a directory, or a local tdf-hls directory.
    case directory(String)
    /// An fps-v2 package on an HTTP(S) origin, read with Range requests (central directory
    /// first, then only the entries needed).
    case packageURL(String)
    /// A tdf-hls master playlist on an HTTP(S) origin.
    case tdfHLSMasterURL(String)
    /// A local tdf-hls master playlist; its media playlists and segments are beside it.
    case tdfHLSMasterFile(String)

    /// From a command-line argument: an `http(s)://` URL whose path ends in `.m3u8` is a tdf-hls
    /// master, any other URL a package; a local path is a directory, a tdf-hls master playlist
    /// (a file ending in `.m3u8`) or a package file.
    public init(argument: String) throws(PlaybackError) {
        let lower = argument.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            var path = Substring(argument)
            if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
            self = path.lowercased().hasSuffix(".m3u8") ? .tdfHLSMasterURL(argument) : .packageURL(argument)
            return
        }
        guard !lower.contains("://") else { throw PlaybackError(.invalidSource, "only http and https URLs are sources") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
            throw PlaybackError(.invalidSource, "the source path does not exist")
        }
        if isDirectory.boolValue {
            self = .directory(argument)
        } else {
            self = lower.hasSuffix(".m3u8") ? .tdfHLSMasterFile(argument) : .packageFile(argument)
        }
    }

    /// A local master playlist's directory and file name.
    static func splitMaster(_ path: String) -> (directory: String, name: String) {
        let url = URL(fileURLWithPath: path)
        return (url.deletingLastPathComponent().path, url.lastPathComponent)
    }
}
