import Foundation
import MediaDRMEncoding
import MediaDRMMedia

/// The `ContentProtection` elements of a protected AdaptationSet (ISO/IEC 23009-1 §5.8.4.1,
/// ISO/IEC 23001-7 §11, DASH-IF IOP 4.3 §7.6.2; docs/formats.md "cmaf"): `cbcs` with its
/// `cenc:default_KID`, the W3C common `pssh` when the init segments do not carry one, and
/// ClearKey with its licence URL in both the DASH-IF CPS form and the older ClearKey guideline
/// form (dash.js and Shaka Player each read one of them). The packager's cmaf MPD and the KAS's
/// fps-v2 views write the same elements.
public enum DASHContentProtection {
    /// Stands for the ClearKey licence URL in an MPD until the KAS serves it for one playback.
    public static let licenseURLPlaceholder = "{{MEDIADRM_CLEARKEY_LICENSE_URL}}"
    public static let mp4ProtectionScheme = "urn:mpeg:dash:mp4protection:2011"
    public static let clearKeyScheme = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"
    public static let commonSystemScheme = "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b"
    /// The `cenc` namespace the `cenc:default_KID` and `cenc:pssh` names need on the MPD root.
    public static let cencNamespace = ("xmlns:cenc", "urn:mpeg:cenc:2013")

    /// - Parameters:
    ///   - pssh: the serialised common `pssh` box, or nil to write no `pssh` element.
    ///   - licenseURL: the ClearKey licence URL (or `licenseURLPlaceholder`); the writer escapes it.
    public static func elements(keyID: [UInt8], pssh: [UInt8]?, licenseURL: String) -> [MPDElement] {
        var elements = [MPDElement("ContentProtection", [("schemeIdUri", mp4ProtectionScheme), ("value", "cbcs"),
                                                         ("cenc:default_KID", CanonicalUUID.text(keyID) ?? "")])]
        if let pssh {
            elements.append(MPDElement("ContentProtection", [("schemeIdUri", commonSystemScheme)],
                                       children: [MPDElement("cenc:pssh", text: Base64.encode(Data(pssh)))]))
        }
        elements.append(MPDElement("ContentProtection", [("schemeIdUri", clearKeyScheme), ("value", "ClearKey1.0")], children: [
            MPDElement("dashif:Laurl", [("xmlns:dashif", "https://dashif.org/CPS")], text: licenseURL),
            MPDElement("clearkey:Laurl", [("xmlns:clearkey", "http://dashif.org/guidelines/clearKey"), ("Lic_type", "EME-1.0")],
                       text: licenseURL),
        ]))
        return elements
    }
}
