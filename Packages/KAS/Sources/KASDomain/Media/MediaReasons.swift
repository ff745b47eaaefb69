// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMMedia
import MediaDRMFPSv2

/// Why a key request's manifest (or the request's pairing with it and its session) was refused.
/// Every case answers the same 403 `"manifest refused"` (fps-v2 §10.7); the code itself goes only
/// to the audit log and the denial metric.
package enum ManifestRefusal: String, Error, Sendable, Equatable, CaseIterable {
    case duplicateKey = "duplicate_json_key"
    case malformedManifest = "malformed_manifest"
    case malformedPolicy = "malformed_policy"
    case componentsMissing = "components_missing"
    case componentsMalformed = "components_malformed"
    case policyUUIDMalformed = "policy_uuid_malformed"
    case dataAttributesMissing = "data_attributes_missing"
    case ivMalformed = "iv_malformed"
    case keyAccessCount = "key_access_count"
    case keyAccessMalformed = "key_access_malformed"
    case kasURLsDiffer = "kas_urls_differ"
    case foreignKAS = "kas_not_accepted"
    case unwrapFailed = "unwrap_failed"
    case keyLength = "key_not_16_bytes"
    case policyBinding = "policy_binding_mismatch"
    case keyBinding = "key_binding_mismatch"
    case sharedKey = "shared_key"
    case malformedMediaRules = "media_rules_malformed"
    case componentMissing = "component_missing"
    case componentUnknown = "component_unknown"
    case assetMismatch = "asset_mismatch"
    case sessionInvalid = "session_invalid"
    case sessionComponent = "session_component_mismatch"
    case sessionProtocol = "session_protocol_mismatch"
    case spcAssetMismatch = "spc_asset_mismatch"
}
