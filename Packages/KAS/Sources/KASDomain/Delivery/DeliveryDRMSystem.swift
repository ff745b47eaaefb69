/// The DRM systems a playback asks for (docs/delivery.md): FairPlay (raw SPC/CKC licence URL),
/// the open TDF path (`/media/v1` key requests or `/kas/v2` rewraps), ClearKey (the web player).
package enum DeliveryDRMSystem: String, Sendable, Equatable, CaseIterable {
    case fairplay
    case tdf
    case clearkey
}
