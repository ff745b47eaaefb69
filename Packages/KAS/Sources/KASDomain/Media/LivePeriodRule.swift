import Foundation
import MediaDRMMedia

/// How far from the KAS clock a live key period may be and still get its key (docs/live.md,
/// "Live on the KAS"). `packager live` binds every segment's key to a period `p` starting at
/// `livePeriodStart` (Unix seconds) lasting `livePeriodSeconds` in `arkavo:media`; segments
/// packaged before the length was written carry none, so a configured length stands in for it.
package struct LivePeriodSettings: Sendable, Equatable {
    /// `media.liveKeyPeriodSeconds`: the length of a period whose policy has no
    /// `livePeriodSeconds` (the packager's `--key-period` of a stream packaged before it was
    /// written); a period ends this long after its start.
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
/// `live_period_expired` when it ended (its start plus the policy's `livePeriodSeconds`, or the
/// configured length when the policy has none) more than the DVR range before `now`. Both bounds
/// are inclusive (a key exactly at the bound is delivered).
enum LivePeriodRule {
    static func refusal(_ rules: MediaRules?, settings: LivePeriodSettings, now: Date) -> MediaDenial? {
        guard let start = rules?.livePeriodStart else { return nil }
        let clock = now.timeIntervalSince1970
        // Int64 seconds as Doubles: exact well past any real clock, and no overflow on hostile values.
        let begins = Double(start)
        if begins > clock + Double(settings.leadSeconds) { return .livePeriodNotStarted }
        let length = rules?.livePeriodSeconds.map(Double.init) ?? Double(settings.keyPeriodSeconds)
        let ends = begins + length
        if ends + Double(settings.dvrSeconds) < clock { return .livePeriodExpired }
        return nil
    }
}
