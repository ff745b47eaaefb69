/// One cue: its optional identifier, its times in milliseconds, its settings as written, and
/// its text (lines joined by "\n").
public struct WebVTTCue: Sendable, Equatable, Hashable {
    public var identifier: String?
    public var start: Int64
    public var end: Int64
    /// The cue settings after the end time (`align:start line:0`), as written; empty when none.
    public var settings: String
    public var text: String

    public init(identifier: String? = nil, start: Int64, end: Int64, settings: String = "", text: String) {
        self.identifier = identifier
        self.start = start
        self.end = end
        self.settings = settings
        self.text = text
    }

    /// The cue block as a file holds it, without the blank line after it.
    public var block: String {
        var timing = WebVTTTimestamp.format(start) + " --> " + WebVTTTimestamp.format(end)
        if !settings.isEmpty { timing += " " + settings }
        return (identifier.map { $0 + "\n" } ?? "") + timing + "\n" + text
    }
}
