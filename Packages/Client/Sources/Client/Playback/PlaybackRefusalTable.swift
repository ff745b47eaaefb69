import Foundation
import MediaDRMJSON

/// Every refusal code with its words (`PlaybackError.Refusal.explanation` and `nextStep`), as
/// the JSON the web player's page loads (`Packages/WebPlayer/player/refusals.json`, written by
/// `player refusals`). The Swift client and the page so show a viewer the same sentences; a
/// ClientTests test fails when the committed file and this table disagree.
///
///     {"refusals": {"not_entitled": {"explanation": "…", "nextStep": "…"}, …}, "version": 1}
public enum PlaybackRefusalTable {
    /// The file's format version, raised when a member changes meaning.
    public static let version = 1

    /// The table as pretty-printed JSON with sorted keys, ending in a newline (stable to diff).
    public static func json() -> Data {
        let refusals = PlaybackError.Refusal.allCases.map { refusal -> (String, JSONValue) in
            var words: [(String, JSONValue)] = [("explanation", .string(refusal.explanation))]
            if let next = refusal.nextStep { words.append(("nextStep", .string(next))) }
            return (refusal.code, .object(JSONObject(words)))
        }
        var data = JSONWriter.write(.object(JSONObject([
            ("refusals", .object(JSONObject(refusals))),
            ("version", .number(JSONNumber(Int64(version)))),
        ])), options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        data.append(0x0A)
        return data
    }
}
