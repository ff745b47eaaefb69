import Foundation
import MediaDRMMedia

/// How far from the KAS clock a live key period may be and still get its key (docs/live.md,
/// "Live on the KAS"). `packager live` binds every segment's key to a period `p` starting at
/// `livePeriodStart` (Unix seconds) in `arkavo:media`; the KAS does not learn the packager's
/// `--key-period`, so it is configured beside the two windows.
package struct LivePeriodSettings: Sendable, Equatable {
    /// `media.liveKeyPeriodSeconds`: the packager's `--key-period`; a period ends this long after
    /// its start.
    package var keyPeriodSeconds: Int = 600
    /// `media.livePeriodLeadSeconds`: a period may start at most this far ahead of the clock (a
    /// player prefetching the next period's first segments).
    package var leadSeconds: Int = 600
    /// `media.liveDVRSeconds`: a period that ended longer ago than this is no longer served.
    package var dvrSeconds: Int = 600

    package init() {}
}

/// The key-period rule of the media policy: nil for a policy without `livePeriod`; otherwise
/// `live_period_not_started` when the period starts more than the lead after `now`, and
/// `live_period_expired` when it ended more than the DVR range before `now`. Both bounds are
/// inclusive (a key exactly at the bound is delivered).
enum LivePeriodRule {
    static func refusal(_ rules: MediaRules?, settings: LivePeriodSettings, now: Date) -> MediaDenial? {
        guard let start = rules?.livePeriodStart else { return nil }
        let clock = now.timeIntervalSince1970
        // Int64 seconds as Doubles: exact well past any real clock, and no overflow on hostile values.
        let begins = Double(start)
        if begins > clock + Double(settings.leadSeconds) { return .livePeriodNotStarted }
        let ends = begins + Double(settings.keyPeriodSeconds)
        if ends + Double(settings.dvrSeconds) < clock { return .livePeriodExpired }
        return nil
    }
}
