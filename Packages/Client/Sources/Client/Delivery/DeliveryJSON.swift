import Foundation
import MediaDRMJSON
import MediaDRMEncoding

/// The one way a delivery answer (playback answer, media-URL renewal, delivery description,
/// DRM-X session) is read: the project's strict JSON parser, a size limit, and errors that name
/// the answer and the field, never a value.
enum DeliveryJSON {
    /// The largest delivery answer read; real ones are a few KiB.
    static let maxBytes = 1 << 20

    static func object(_ body: Data, answer: String) throws(PlaybackError) -> JSONObject {
        guard body.count <= maxBytes else { throw PlaybackError(.malformed, "the \(answer) is larger than 1 MiB") }
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw PlaybackError(.malformed, "the \(answer) is not valid JSON")
        }
        guard let object = value.object else { throw PlaybackError(.malformed, "the \(answer) is not a JSON object") }
        return object
    }

    /// Runs typed member reads, turning a `JSONError` into `.malformed` naming the answer.
    static func read<T>(_ answer: String, _ body: () throws(JSONError) -> T) throws(PlaybackError) -> T {
        do {
            return try body()
        } catch {
            throw PlaybackError(.malformed, "the \(answer): \(error.reason)")
        }
    }

    /// A required RFC 3339 UTC timestamp member, in seconds since the epoch.
    static func timestamp(_ object: JSONObject, _ key: String, answer: String) throws(PlaybackError) -> Double {
        let text = try read(answer) { () throws(JSONError) in try object.requireString(key) }
        guard let seconds = RFC3339Timestamp.seconds(text) else {
            throw PlaybackError(.malformed, "the \(answer): \(key) is not an RFC 3339 UTC timestamp")
        }
        return seconds
    }
}
