import Foundation

/// A call of a signed raw-SPC licence URL (`POST /media/v1/playback/{id}/license/{component}?expires=&sig=`,
/// or the delivery API's `processSpcUrl`, `POST /media/v1/playback/{id}/spc?viewer=&expires=&sig=`):
/// what the URL says and the raw SPC of the body, as the route read them. Nothing here is
/// trusted until `DeliveryService.license` or `processSPC` has checked the signature.
package struct LicenseURLRequest: Sendable {
    package var playbackID: String?
    package var component: String?
    /// `processSpcUrl`'s sealed viewer and title (`viewer=`).
    package var ticket: String?
    package var expires: String?
    package var signature: String?
    package var spc: Data

    package init(playbackID: String?, component: String?, ticket: String? = nil, expires: String?, signature: String?, spc: Data) {
        self.playbackID = playbackID
        self.component = component
        self.ticket = ticket
        self.expires = expires
        self.signature = signature
        self.spc = spc
    }
}
