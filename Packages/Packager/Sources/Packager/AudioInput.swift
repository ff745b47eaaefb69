/// An audio file given apart from the video (`--audio FILE[:lang=TAG]`): each of its audio
/// tracks becomes a tdf-hls audio rendition, with `language` (BCP 47) in place of the tracks'
/// `mdhd` language when given.
public struct AudioInput: Sendable, Equatable {
    public var path: String
    public var language: String?

    public init(path: String, language: String? = nil) {
        self.path = path
        self.language = language
    }

    /// `FILE` or `FILE:lang=TAG`; the last `:lang=` names the language, so a path may hold colons.
    public init(argument: String) throws(PackagerError) {
        let (path, language) = try LanguageTag.split(argument, example: "talk.es.m4a:lang=es")
        self.init(path: path, language: language)
    }
}

/// BCP 47 language tags as HLS LANGUAGE carries them (RFC 8216 §4.3.4.1, RFC 5646).
enum LanguageTag {
    /// `FILE` or `FILE:lang=TAG` (`--audio`, `--subtitles`): the last `:lang=` names the
    /// language, so a path may hold colons. A malformed tag is refused with `example`.
    static func split(_ argument: String, example: String) throws(PackagerError) -> (path: String, language: String?) {
        guard let marker = argument.range(of: ":lang=", options: .backwards) else { return (argument, nil) }
        let tag = String(argument[marker.upperBound...])
        guard isWellFormed(tag) else {
            throw PackagerError(.invalidArgument, "'\(tag)' is not a BCP 47 language tag (give FILE:lang=xx, for example \(example))")
        }
        return (String(argument[..<marker.lowerBound]), tag)
    }

    /// The RFC 5646 shape this packager accepts: a primary language subtag of 2 or 3 letters,
    /// then subtags of 1 to 8 letters or digits, separated by hyphens; 35 characters at most.
    static func isWellFormed(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = parts.first, (2 ... 3).contains(primary.count), tag.count <= 35,
              primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1 ... 8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// The rendition NAME a player shows (RFC 8216 §4.3.4.1: human-readable): the language's
    /// English name for common tags, the tag itself otherwise.
    static func displayName(_ tag: String) -> String {
        let names = ["en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian", "ja": "Japanese",
                     "zh": "Chinese", "pt": "Portuguese", "ru": "Russian", "ko": "Korean", "ar": "Arabic", "nl": "Dutch",
                     "sv": "Swedish", "hi": "Hindi", "und": "Undetermined"]
        let primary = tag.split(separator: "-").first.map { $0.lowercased() } ?? tag
        guard let name = names[primary] else { return tag }
        return primary == tag.lowercased() ? name : "\(name) (\(tag))"
    }
}
