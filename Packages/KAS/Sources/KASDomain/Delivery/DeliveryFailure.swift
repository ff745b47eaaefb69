import MediaDRMMedia

/// Why a delivery call (docs/delivery.md) ended without its answer. The service decides and
/// `DeliveryRouteAdapter` gives each case its status in one table; no case carries request data
/// or a secret.
package enum DeliveryFailure: Error, Sendable {
    /// The request breaks the message's rules; the sentence names which.
    case malformed(String)
    case noSuchAsset
    case noSuchPlayback
    /// The viewer may not watch this title now (entitlement, rental, region).
    case denied(MediaDenial)
    /// A licence URL that is not valid (`license_url_invalid`), expired (`license_url_expired`)
    /// or whose playback ended (`playback_ended`).
    case licenseURLRefused(code: String)
    /// A ClearKey licence request names a key id that is not one of the playback's asset.
    case keyIDUnknown
    /// A playback manifest URL names no manifest of its title (or the title is not cmaf).
    case noSuchManifest
    /// `?token=` was sent but no delivery secret is configured.
    case deliveryTokensNotConfigured
    /// The delivery token does not verify; the sentence is fixed text, never token data.
    case deliveryTokenRefused(String)
    /// A backend call without the Basic credential of a configured backend client (missing,
    /// unknown client, wrong secret, or any other scheme such as a viewer's bearer).
    case backendCredentialRefused
    /// A media-service step (session start, key request) refused; answered as the media routes answer it.
    case media(MediaFailure)
    case storeUnavailable
    case catalogEntryUnreadable
    case randomGeneratorUnavailable
    case fairPlayUnavailable
    /// A playback asked for FairPlay of a key service configured without it.
    case fairPlayNotOffered
}
