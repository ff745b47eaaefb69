import Foundation
import MediaDRMWebVTT

/// A WebVTT file given with its language (`--subtitles FILE:lang=TAG`): it becomes a tdf-hls
/// subtitle rendition. WebVTT carries no language of its own, so the tag is required.
public struct SubtitleInput: Sendable, Equatable {
    public var path: String
    /// BCP 47.
    public var language: String

    public init(path: String, language: String) {
        self.path = path
        self.language = language
    }

    public init(argument: String) throws(PackagerError) {
        let (path, language) = try LanguageTag.split(argument, example: "talk.en.vtt:lang=en")
        guard let language else {
            throw PackagerError(.invalidArgument, "--subtitles needs the language: give FILE:lang=xx (for example talk.en.vtt:lang=en)")
        }
        self.init(path: path, language: language)
    }

    /// Reads and parses the file strictly; a refusal names the file and the line.
    func read() throws(PackagerError) -> WebVTTFile {
        let limits = WebVTTLimits()
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes[.size] as? Int, size > limits.maximumBytes {
                throw PackagerError(.limitExceeded, "the subtitles '\(path)' are \(size) bytes, over the \(limits.maximumBytes)-byte limit")
            }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as PackagerError {
            throw error
        } catch {
            throw PackagerError(.io, "cannot read the subtitles '\(path)'")
        }
        do { return try WebVTTFile(parsing: data, limits: limits) } catch {
            throw PackagerError(.malformedInput, "the subtitles '\(path)' are not valid WebVTT: \(error.reason)")
        }
    }
}
