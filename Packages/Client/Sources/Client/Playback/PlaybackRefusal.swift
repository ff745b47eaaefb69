import MediaDRMMedia
import Foundation
import MediaDRMFPSv2
import MediaDRMJSON

extension PlaybackError {
    /// Why the key service refused this viewer, typed: a policy denial (`MediaDenial`, the code
    /// in the answer's `reason` member: 403 `platform refused`, or 429 on a session start), or
    /// the bearer challenge of a 401 (RFC 6750 `error_description`). docs/protocol.md lists every
    /// code. The client keeps only a code it knows; any other server text is dropped.
    public enum Refusal: Sendable, Equatable, Hashable, CustomStringConvertible {
        case denied(MediaDenial)
        /// 401 with `error_description="expired"`: the token was genuine but is past its `exp`.
        case tokenExpired
        /// 401 for any other token failure (the key service never says which check failed).
        case tokenInvalid

        public static let allCases: [Refusal] = MediaDenial.allCases.map(Refusal.denied) + [.tokenExpired, .tokenInvalid]

        /// The stable code: the denial's wire code, `token_expired` or `token_invalid`.
        public var code: String {
            switch self {
            case .denied(let denial): denial.rawValue
            case .tokenExpired: "token_expired"
            case .tokenInvalid: "token_invalid"
            }
        }

        public var description: String { code }

        /// What to tell the viewer, in words.
        public var explanation: String {
            switch self {
            case .tokenExpired: return "the viewer's token has expired: sign in again"
            case .tokenInvalid: return "the key service did not accept the viewer's token"
            case .denied(let denial):
                switch denial {
                case .notEntitled: return "this viewer is not entitled to this title"
                case .dissemExcluded: return "this title is shared with named viewers only, and this viewer is not one of them"
                case .rentalNotPurchased: return "this title is a rental this viewer has not bought"
                case .rentalPurchaseWindowClosed:
                    return "the rental was bought too long ago: its window to start watching has closed"
                case .rentalPlaybackWindowClosed: return "the rental's viewing window has closed since it was first played"
                case .concurrentStreams:
                    return "the title's limit of simultaneous streams is reached: end another playback first"
                case .tooManySessions: return "this viewer has too many playbacks open: end another playback first"
                case .tooManyPlaybacks: return "this viewer has started too many playbacks that are still open: end another playback first"
                case .regionUnknown: return "the key service could not tell which region this viewer is in"
                case .regionNotAllowed: return "this title is not available in this viewer's region"
                case .regionBlocked: return "this title is blocked in this viewer's region"
                case .hdcpInsufficient: return "this title needs HDCP output protection this device does not prove"
                case .securityLevelInsufficient: return "this title needs a more secure playback device"
                case .virtualMachine: return "this title cannot be played in a virtual machine"
                case .virtualMachineUnverified: return "this title needs a device that proves it is not a virtual machine"
                case .offlineNotAllowed: return "this title cannot be downloaded for offline viewing"
                case .offlineProfileUnsupported:
                    return "this package's profile (tdf-hls) has no offline licences: package it as fps-v2 to download it"
                case .offlineDeviceLimit:
                    return "this title is downloaded on as many devices as allowed: release it on another device first"
                case .liveEventNotStarted: return "this live event has not started yet"
                case .liveEventEnded: return "this live event has ended"
                case .livePeriodNotStarted: return "this part of the live stream has not been broadcast yet"
                case .livePeriodExpired: return "this part of the live stream is older than the replay window"
                }
            }
        }

        /// The refusal a key-service answer carries: the 401 challenge, or a known code in the
        /// JSON body's `reason` member of a 403 or 429. Nil for anything else.
        init?(status: Int, headers: TransportHeaders, body: Data) {
            switch status {
            case 401:
                guard let challenge = headers["www-authenticate"], challenge.contains(#"error="invalid_token""#) else {
                    return nil
                }
                self = challenge.contains(#"error_description="expired""#) ? .tokenExpired : .tokenInvalid
            case 403, 429:
                guard let value = try? JSONParser.parse(body), case .object(let object) = value,
                      case .string(let code)? = object["reason"], let denial = MediaDenial(rawValue: code) else { return nil }
                self = .denied(denial)
            default:
                return nil
            }
        }
    }
}
