import Foundation
import KASDomain
import MediaDRMEncoding
import MediaDRMToolSupport

/// `kas assets add --live [--starts-at T] [--ends-at T] [--blackout-regions XX,YY]`: a live
/// title's event (docs/live.md "Live on the KAS"), read and checked here so that the catalog only
/// ever holds a well-formed one.
enum LiveEventOptions {
    static let options = [
        ToolOption.flag("live", help: "A live tdf-hls directory (packager live): catalogue it with its event."),
        ToolOption.single("starts-at", valueName: "time", help: "With --live: no key before this RFC 3339 UTC time."),
        ToolOption.single("ends-at", valueName: "time",
                          help: "With --live: no key after this RFC 3339 UTC time plus media.liveDVRSeconds."),
        ToolOption.single("blackout-regions", valueName: "XX,YY",
                          help: "With --live: ISO 3166-1 alpha-2 regions where the event is not shown."),
    ]

    /// The event the options describe; nil without `--live` (then none of the others may be given).
    static func event(_ parsed: ParsedArguments) throws(UsageError) -> CatalogLiveEvent? {
        guard parsed.flag("live") else {
            for name in ["starts-at", "ends-at", "blackout-regions"] where parsed.value(name) != nil {
                throw UsageError("'--\(name)' goes with '--live' only: a VOD title has no event")
            }
            return nil
        }
        var event = CatalogLiveEvent()
        event.startsAt = try time(parsed, "starts-at")
        event.endsAt = try time(parsed, "ends-at")
        if let start = event.startsAt, let end = event.endsAt, end <= start {
            throw UsageError("'--ends-at' must be after '--starts-at'")
        }
        if let text = parsed.value("blackout-regions") {
            let regions = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            for region in regions where region.utf8.count != 2 || !region.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) {
                throw UsageError("invalid region '\(region.prefix(16))' in '--blackout-regions': expected ISO 3166-1 alpha-2 codes in upper case, comma-separated (for example DE,FR)")
            }
            event.blackoutRegions = regions
        }
        return event
    }

    private static func time(_ parsed: ParsedArguments, _ name: String) throws(UsageError) -> Date? {
        guard let text = parsed.value(name) else { return nil }
        guard let seconds = RFC3339Timestamp.seconds(text) else {
            throw UsageError("invalid value '\(text.prefix(64))' for '--\(name)': expected an RFC 3339 UTC time such as 2026-12-01T20:00:00Z")
        }
        return Date(timeIntervalSince1970: seconds.rounded(.down))
    }
}
