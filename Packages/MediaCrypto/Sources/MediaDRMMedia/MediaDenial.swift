/// Why a key service's media policy refused a viewer's own request: one stable wire code per
/// rule of `arkavo:media` and the entitlement rules, written once for the KAS that answers it
/// (the `reason` member of a refusal, its audit log and its denial metric) and for the clients
/// that read it. The viewer asked about their own rights, so the code is no secret; a code is
/// never reused for another rule. docs/protocol.md ("Refusal codes") says what each means.
public enum MediaDenial: String, Sendable, Equatable, Hashable, CaseIterable {
    case notEntitled = "not_entitled"
    case dissemExcluded = "dissem_excluded"
    case rentalNotPurchased = "rental_not_purchased"
    case rentalPurchaseWindowClosed = "rental_purchase_window_closed"
    case rentalPlaybackWindowClosed = "rental_playback_window_closed"
    /// The asset's `maxConcurrentStreams` playbacks of this viewer are live.
    case concurrentStreams = "concurrent_streams"
    /// The viewer holds the key service's bound of live sessions, whatever the assets.
    case tooManySessions = "too_many_sessions"
    /// The viewer holds the key service's bound of live playbacks (started, neither released nor
    /// expired), whatever the assets.
    case tooManyPlaybacks = "too_many_playbacks"
    case regionUnknown = "region_unknown"
    case regionNotAllowed = "region_not_allowed"
    case regionBlocked = "region_blocked"
    case hdcpInsufficient = "hdcp_insufficient"
    case securityLevelInsufficient = "security_level_insufficient"
    case virtualMachine = "virtual_machine"
    case virtualMachineUnverified = "virtual_machine_unverified"
    /// The policy does not allow offline viewing (no `offline: true`).
    case offlineNotAllowed = "offline_not_allowed"
    /// The package's profile has no offline licences: tdf-hls, whose every segment has its own key.
    case offlineProfileUnsupported = "offline_profile_unsupported"
    /// The viewer holds live offline licences of this asset on `maxOfflineDevices` other devices.
    case offlineDeviceLimit = "offline_device_limit"
    /// A live event's catalog window has not opened yet (docs/live.md "Live on the KAS").
    case liveEventNotStarted = "live_event_not_started"
    /// A live event's catalog window, with its DVR range, has closed.
    case liveEventEnded = "live_event_ended"
    /// The key's live period starts further ahead of the KAS clock than the period lead.
    case livePeriodNotStarted = "live_period_not_started"
    /// The key's live period ended longer ago than the DVR range.
    case livePeriodExpired = "live_period_expired"
}
