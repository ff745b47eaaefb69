import Foundation
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMMedia

/// Cloud Video Kit's FairPlay licence request (docs/delivery.md "Cloud Video Kit"): its iOS apps
/// post the raw SPC to their configured licence URL with the query rebuilt as `brandGuid` plus
/// the `kid` and `iv` copied from the stream's `skd://` URI, the tenant in `x-drm-brandGuid` and
/// the viewer's token in `x-drm-usertoken`; the CKC comes back raw or as `{"ckc": "<base64>"}`.
package struct CloudVideoKitLicenseRequest: Sendable {
    /// `brandGuid` of the query and `x-drm-brandGuid`: both must name `delivery.tenantID`.
    package var queryBrand: String?
    package var headerBrand: String?
    /// `kid` and `iv` of the query, as the app copied them (32 hex digits each).
    package var keyID: String?
    package var iv: String?
    /// `x-drm-usertoken`, already verified as a viewer's bearer token by the route; it names
    /// the playback (one per token and title) and is never logged.
    package var userToken: String
    package var spc: Data

    package init(queryBrand: String?, headerBrand: String?, keyID: String?, iv: String?, userToken: String, spc: Data) {
        self.queryBrand = queryBrand
        self.headerBrand = headerBrand
        self.keyID = keyID
        self.iv = iv
        self.userToken = userToken
        self.spc = spc
    }
}

extension DeliveryService {
    /// Cloud Video Kit's licence for `viewer` (the verified `x-drm-usertoken`). Checks, in this
    /// order: the brand (query and header equal to `delivery.tenantID`, else 403
    /// `brand_refused`); `kid` and `iv` each 16 bytes of hex (else 400); the catalogued title
    /// whose component has that key id (else 403 `key_id_unknown`) and whose IV is `iv` (else 403
    /// `key_iv_mismatch`). Then the playback named by the token and title starts through
    /// `startedPlayback` on the first SPC, or is reused, and the component's CKC is made.
    package func cloudVideoKitLicense(_ request: CloudVideoKitLicenseRequest, viewer: Identity,
                                      region: String?) throws(DeliveryFailure) -> Data {
        let now = clock()
        guard let tenant = settings.tenantID, request.queryBrand == tenant, request.headerBrand == tenant else {
            throw .licenseURLRefused(code: "brand_refused")
        }
        let keyID = try Self.keyItem(request.keyID, name: "kid")
        let iv = try Self.keyItem(request.iv, name: "iv")
        let entries = try storeCall { () throws(StoreError) in try catalog.entries() }
        guard let entry = entries.first(where: { $0.keyIDs.contains { $0.keyID == keyID } }),
              let component = entry.keyIDs.first(where: { $0.keyID == keyID })?.component,
              let manifest = entry.manifest, entry.components.contains(component)
        else { throw .keyIDUnknown }
        // The title's one constant IV, `method.iv` of its manifest (fps-v2 §5.4).
        guard let parsed = try? FPSv2Manifest(parsing: manifest), (try? Base64.decode(parsed.method.iv)) == iv else {
            throw .licenseURLRefused(code: "key_iv_mismatch")
        }
        guard !request.spc.isEmpty else { throw .malformed("the body must be the SPC (application/octet-stream)") }
        guard media.fairPlay != nil else { throw .fairPlayUnavailable }

        let id = licenses.code(.cloudVideoKitPlayback(assetID: entry.assetID, userToken: request.userToken), playbackID: "", expires: 0)
        try startOnce(playbackID: id, of: entry, viewer: viewer, region: region, now: now)
        return try ckc(spc: request.spc, playbackID: id, viewer: viewer, entry: entry, manifest: manifest, component: component,
                       region: region)
    }

    /// A `kid` or `iv` query item: exactly 16 bytes as hex (`SKDKeyURI.keyItemBytes`), else 400.
    private static func keyItem(_ text: String?, name: String) throws(DeliveryFailure) -> Data {
        guard let bytes = text.flatMap({ SKDKeyURI.keyItem($0) }) else {
            throw .malformed("\(name) must be \(SKDKeyURI.keyItemBytes * 2) hex digits")
        }
        return bytes
    }
}
