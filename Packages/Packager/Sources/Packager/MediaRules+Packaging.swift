import MediaDRMMedia

extension MediaRules {
    /// `validate()`, with a refusal named by the `packager package` flag that sets the member, so
    /// a packager user reads the option to change.
    public func validateAsPackagerFlags() throws(PackagerError) {
        do {
            try validate()
        } catch {
            let name = error.member.map(Self.packagerFlag) ?? MediaRules.policyKey
            throw PackagerError(.invalidArgument, "\(name) \(error.problem)")
        }
    }

    /// The `packager package` flag that sets `member`.
    static func packagerFlag(_ member: Member) -> String {
        switch member {
        case .version, .rental: "--rental-purchase-window/--rental-playback-window"
        case .rentalPurchaseWindow: "--rental-purchase-window"
        case .rentalPlaybackWindow: "--rental-playback-window"
        case .maxConcurrentStreams: "--max-streams"
        case .allowedRegions: "--allowed-regions"
        case .blockedRegions: "--blocked-regions"
        case .hdcp: "--hdcp"
        case .minSecurityLevel: "--min-security-level"
        case .allowVirtualMachines: "--no-virtual-machines"
        case .offline: "--offline"
        case .offlineLicenseDuration: "--offline-license-duration"
        case .offlinePlaybackWindow: "--offline-playback-window"
        case .maxOfflineDevices: "--max-offline-devices"
        case .livePeriod, .livePeriodStart, .livePeriodSeconds: "--key-period"
        }
    }
}
