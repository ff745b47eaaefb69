import Foundation
import MediaDRMEncoding

/// A title's poster frames (docs/delivery.md "Poster frames"): JPEGs at `widths` that
/// `kas assets add --poster-from SOURCE` makes with ffmpeg from the clear source and writes where
/// the origin serves them, so each is signed like the media (`OriginURLSigner`, one prefix):
/// a directory title's own directory (`/talk/poster-640.jpg`), and for an fps-v2 file, whose
/// signed prefix is the file alone, a directory beside it named after it
/// (`/talk.tdf.posters/poster-640.jpg`).
package enum CatalogPosters {
    /// The widths made, in the order the delivery API lists them; the height keeps the aspect.
    package static let widths = [320, 640, 1280]
    /// The width of the delivery API's single `image`.
    package static let imageWidth = 640

    package static func fileName(width: Int) -> String { "poster-\(width).jpg" }

    /// Debian's ffmpeg, or the one `MEDIADRM_FFMPEG` names (as the packager's).
    package static var ffmpeg: String {
        ProcessInfo.processInfo.environment["MEDIADRM_FFMPEG"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/ffmpeg"
    }

    /// Where the origin serves the posters of the title at `mediaPath`.
    package static func path(for mediaPath: TitlePath) throws(CatalogError) -> TitlePath {
        if mediaPath.isDirectory { return mediaPath }
        do {
            return try TitlePath(mediaPath.prefix + ".posters/")
        } catch {
            throw CatalogError("'\(mediaPath)' is too long a name for its posters' directory '\(mediaPath).posters/'")
        }
    }

    /// The local directory the posters of `package` go to: the package directory itself, or the
    /// directory beside an fps-v2 file that the origin serves as `path(for:)`.
    package static func directory(package: String, mediaPath: TitlePath) throws(CatalogError) -> String {
        if mediaPath.isDirectory { return package }
        var file = package
        while file.count > 1 && file.hasSuffix("/") { file.removeLast() }
        let parent = (file as NSString).deletingLastPathComponent
        return (parent.isEmpty ? "." : parent) + "/" + String(try path(for: mediaPath).prefix.dropFirst().dropLast())
    }

    /// One ffmpeg run: a representative frame among the first ones (ffmpeg's `thumbnail`
    /// filter), scaled to each width, written to a scratch directory and moved into
    /// `directory` (created when missing), replacing earlier posters.
    package static func make(from source: String, into directory: String, ffmpeg: String) throws(CatalogError) {
        let fileManager = FileManager.default
        let scratch = fileManager.temporaryDirectory.appendingPathComponent("kas-posters-\(UUID().uuidString)").path
        defer { try? fileManager.removeItem(atPath: scratch) }
        do {
            try fileManager.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CatalogError("cannot create the posters' directory '\(directory)'")
        }
        let outputs = widths.enumerated().map { ($0.offset, $0.element) }
        let graph = "[0:v:0]thumbnail,split=\(widths.count)" + outputs.map { "[s\($0.0)]" }.joined() + ";"
            + outputs.map { "[s\($0.0)]scale=\($0.1):-2[o\($0.0)]" }.joined(separator: ";")
        var arguments = ["-v", "error", "-nostdin", "-i", source, "-filter_complex", graph]
        for (index, width) in outputs {
            arguments += ["-map", "[o\(index)]", "-frames:v", "1", "-q:v", "3", "-y", scratch + "/" + fileName(width: width)]
        }
        if let failure = ExternalProgram.run(ffmpeg, arguments, name: "ffmpeg", purpose: "make the poster frames") {
            throw CatalogError(failure)
        }
        for width in widths {
            let target = directory + "/" + fileName(width: width)
            do {
                if fileManager.fileExists(atPath: target) { try fileManager.removeItem(atPath: target) }
                try fileManager.moveItem(atPath: scratch + "/" + fileName(width: width), toPath: target)
            } catch {
                throw CatalogError("cannot write the poster '\(target)'")
            }
        }
    }
}
