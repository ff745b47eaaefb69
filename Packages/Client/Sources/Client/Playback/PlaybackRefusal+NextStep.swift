extension PlaybackError.Refusal {
    /// What the viewer can do about the refusal, as a sentence of its own; nil when
    /// `explanation` already ends with it (the token and the stream-limit refusals). Shown after
    /// the explanation by the web player's page (docs/web.md "Refusals in words").
    public var nextStep: String? {
        switch self {
        case .tokenExpired: return nil
        case .tokenInvalid: return "Sign out and sign in again; if it keeps happening, contact support."
        case .denied(let denial):
            switch denial {
            case .notEntitled, .dissemExcluded:
                return "Check that you are signed in with the account that has this title, or choose another title."
            case .rentalNotPurchased: return "Rent the title first, then play it again."
            case .rentalPurchaseWindowClosed, .rentalPlaybackWindowClosed: return "Rent the title again to watch it."
            case .concurrentStreams, .tooManySessions, .tooManyPlaybacks: return nil
            case .regionUnknown: return "Turn off a VPN or proxy if you use one, then try again."
            case .regionNotAllowed, .regionBlocked: return "Choose another title; this one cannot be played where you are."
            case .hdcpInsufficient: return "Connect a display that supports HDCP, or watch on the device's own screen."
            case .securityLevelInsufficient, .virtualMachine, .virtualMachineUnverified:
                return "Watch on another device, such as a phone, a tablet or a streaming box."
            case .offlineNotAllowed: return "Watch it online instead."
            case .offlineProfileUnsupported: return "Watch it online instead."
            case .offlineDeviceLimit: return "Remove the download from another device, then try again."
            case .liveEventNotStarted: return "Come back when the event starts."
            case .liveEventEnded: return "Choose another title; this event is over."
            case .livePeriodNotStarted, .livePeriodExpired: return "Return to the live edge, then try again."
            }
        }
    }
}
