import MediaDRMMP4

/// What a track's edit list does to its timing: leading empty edits delay the media, and one
/// media edit chooses where in the media presentation starts and how long it lasts. Times are in
/// the track's media timescale. Other edit lists (several media edits, rates other than 1,
/// dwells) are refused rather than misread.
public struct EditTiming: Sendable, Equatable {
    /// The composition time shown first (the media edit's `media_time`; 0 without edits).
    public var mediaStart: Int64
    /// Presentation delay from leading empty edits.
    public var delay: Int64
    /// How much media the edit shows; nil means to the end.
    public var mediaDuration: Int64?

    public init(mediaStart: Int64 = 0, delay: Int64 = 0, mediaDuration: Int64? = nil) {
        self.mediaStart = mediaStart
        self.delay = delay
        self.mediaDuration = mediaDuration
    }

    /// The presentation time of composition time `ct`, in the media timescale.
    public func presentationTime(ofCompositionTime ct: Int64) -> Int64 { ct - mediaStart + delay }

    init(editList: EditListBox?, movieTimescale: UInt32, mediaTimescale: UInt32, trackName: String) throws(PackagerError) {
        self.init()
        guard let entries = editList?.entries, !entries.isEmpty else { return }
        func toMedia(_ movieUnits: UInt64) -> Int64 {
            guard movieTimescale > 0 else { return 0 }
            let (product, overflow) = movieUnits.multipliedReportingOverflow(by: UInt64(mediaTimescale))
            return overflow ? Int64.max : Int64(clamping: product / UInt64(movieTimescale))
        }
        var index = 0
        while index < entries.count, entries[index].mediaTime == -1 {
            delay += toMedia(entries[index].segmentDuration)
            index += 1
        }
        let media = entries[index...]
        guard let edit = media.first else { return }  // only empty edits: nothing shown, treat as no edit
        guard media.count == 1 else {
            throw PackagerError(.unsupportedInput, "\(trackName): an edit list with \(media.count) media edits is not supported")
        }
        guard edit.mediaRateInteger == 1, edit.mediaRateFraction == 0, edit.mediaTime >= 0 else {
            throw PackagerError(.unsupportedInput, "\(trackName): an edit with a rate other than 1 is not supported")
        }
        mediaStart = edit.mediaTime
        // Some writers leave segment_duration 0 to mean "the rest of the media".
        mediaDuration = edit.segmentDuration == 0 ? nil : toMedia(edit.segmentDuration)
    }
}
