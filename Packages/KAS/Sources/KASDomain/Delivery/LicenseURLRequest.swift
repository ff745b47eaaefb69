import Foundation

/// A call of a signed licence URL (`POST /media/v1/playback/{id}/license/{component}?expires=&sig=`):
/// what the URL says and the raw SPC of the body, as the route read them. Nothing here is
/// trusted until `DeliveryService.license` has checked the signature.
package struct LicenseURLRequest: Sendable {
    package var playbackID: String?
    package var component: String?
    package var expires: String?
    package var signature: String?
    package var spc: Data

    package init(playbackID: String?, component: String?, expires: String?, signature: String?, spc: Data) {
        self.playbackID = playbackID
        self.component = component
        self.expires = expires
        self.signature = signature
        self.spc = spc
    }
}
