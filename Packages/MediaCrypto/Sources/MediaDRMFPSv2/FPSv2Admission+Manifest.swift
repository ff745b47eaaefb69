// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMTDF
import MediaDRMMedia

// §5 manifest, §6 policy, §5.3 component list, §9.6 profile version, §5.2 key access, §5.4 IV.
extension AdmissionRun {
    func runManifestChecks() {
        let limits = options.limits
        step(.manifestJSON, requires: [.manifestEntryRead]) { () throws(FPSv2Error) -> Outcome in
            guard let bytes = manifestBytes else { throw refuse(.manifestJSON, "manifest.json was not read") }
            do throws(JSONError) {
                manifestJSON = try JSONParser.parse(Array(bytes), limits: JSONLimits(maxBytes: limits.maxManifestBytes, maxDepth: 32))
            } catch {
                throw refuse(.manifestJSON, "manifest.json is not valid JSON: \(error.reason)")
            }
            return .passed("\(bytes.count) bytes")
        }
        step(.manifestSchema, requires: [.manifestJSON]) { () throws(FPSv2Error) -> Outcome in
            guard let json = manifestJSON else { throw refuse(.manifestSchema, "manifest.json was not parsed") }
            do throws(FPSv2Error) {
                manifest = try FPSv2Manifest(json: json)
            } catch {
                throw refuse(.manifestSchema, error.reason)
            }
            return .passed("")
        }
    }

    func runPolicyChecks() {
        step(.policyEncoding, requires: [.manifestSchema]) { () throws(FPSv2Error) -> Outcome in
            guard let policy = manifest?.policy else { throw refuse(.policyEncoding, "no policy") }
            let decoded: Data
            do throws(EncodingError) {
                decoded = try Base64.decode(policy)
            } catch {
                throw refuse(.policyEncoding, "the policy is not canonical standard base64")
            }
            let value: JSONValue
            do throws(JSONError) {
                value = try JSONParser.parse(Array(decoded), limits: JSONLimits(maxBytes: options.limits.maxManifestBytes, maxDepth: 32))
            } catch {
                throw refuse(.policyEncoding, "the decoded policy is not valid JSON: \(error.reason)")
            }
            guard case .object(let object) = value else { throw refuse(.policyEncoding, "the decoded policy is not a JSON object") }
            policyObject = object
            return .passed("\(decoded.count) bytes")
        }
        step(.policyUUID, requires: [.policyEncoding]) { () throws(FPSv2Error) -> Outcome in
            guard case .string(let uuid)? = policyObject?["uuid"] else { throw refuse(.policyUUID, "the policy has no string uuid") }
            guard CanonicalUUID.isCanonical(uuid) else {
                throw refuse(.policyUUID, "the policy uuid is not in canonical lowercase 8-4-4-4-12 form")
            }
            policyUUID = uuid
            return .passed("")
        }
        step(.policyDataAttributes, requires: [.policyEncoding]) { () throws(FPSv2Error) -> Outcome in
            guard case .object(let body)? = policyObject?["body"] else { throw refuse(.policyDataAttributes, "the policy has no body object") }
            guard case .array(let attributes)? = body["dataAttributes"], !attributes.isEmpty else {
                throw refuse(.policyDataAttributes, "body.dataAttributes is missing or empty (an incomplete policy)")
            }
            for (index, item) in attributes.enumerated() {
                guard case .object(let attribute) = item, case .string(let fqn)? = attribute["attribute"], !fqn.isEmpty else {
                    throw refuse(.policyDataAttributes, "body.dataAttributes[\(index)] has no non-empty string attribute")
                }
            }
            if let dissem = body["dissem"] {
                guard case .array(let items) = dissem, items.allSatisfy({ if case .string = $0 { true } else { false } }) else {
                    throw refuse(.policyDataAttributes, "body.dissem is not an array of strings")
                }
            }
            return .passed("\(attributes.count) data attributes")
        }
        step(.profileVersion, requires: [.policyEncoding]) { () throws(FPSv2Error) -> Outcome in
            guard policyObject?[MediaComponentList.policyKey] != nil else {
                throw refuse(.profileVersion, "the policy has no \(MediaComponentList.policyKey): a profile version 1 package is unsupported")
            }
            return .passed("")
        }
        step(.componentList, requires: [.profileVersion]) { () throws(FPSv2Error) -> Outcome in
            do throws(MediaComponentListError) {
                componentList = try MediaComponentList(version2: policyObject?[MediaComponentList.policyKey])
            } catch {
                throw refuse(.componentList, error.reason)
            }
            components = componentList?.kinds ?? []
            return .passed(components.map(\.id).joined(separator: ", "))
        }
        step(.keyBindingForm, requires: [.componentList]) { () throws(FPSv2Error) -> Outcome in
            do throws(MediaComponentListError) {
                try componentList?.checkKeyBindingForms()
            } catch {
                throw refuse(.keyBindingForm, error.reason)
            }
            return .passed("")
        }
        step(.classification, requires: [.policyEncoding]) { () throws(FPSv2Error) -> Outcome in
            let result = FPSv2Classification.read(policyObject?[TDFPolicy.classificationKey])
            switch result {
            case .success(let value):
                classification = value
                return .passed(value.isClean ? "clean" : "flagged: " + value.flagged.joined(separator: ", "))
            case .failure(let error):
                guard options.requireReadableClassification else {
                    return .notApplicable("not required by the options (\(error.reason))")
                }
                throw refuse(.classification, error.reason)
            }
        }
    }

    func runKeyAccessChecks() {
        step(.keyAccessCount, requires: [.manifestSchema, .componentList]) { () throws(FPSv2Error) -> Outcome in
            let count = manifest?.keyAccess.count ?? 0
            guard count == components.count else {
                throw refuse(.keyAccessCount, "\(count) keyAccess objects for \(components.count) components")
            }
            return .passed("\(count)")
        }
        step(.keyAccessShape, requires: [.manifestSchema]) { () throws(FPSv2Error) -> Outcome in
            for (index, access) in (manifest?.keyAccess ?? []).enumerated() {
                guard access.type == "wrapped" else { throw refuse(.keyAccessShape, "keyAccess[\(index)].type is not \"wrapped\"") }
                guard !access.url.isEmpty else { throw refuse(.keyAccessShape, "keyAccess[\(index)].url is empty") }
                guard let wrapped = try? Base64.decode(access.wrappedKey), !wrapped.isEmpty else {
                    throw refuse(.keyAccessShape, "keyAccess[\(index)].wrappedKey is not non-empty canonical standard base64")
                }
            }
            return .passed("")
        }
        step(.keyAccessURL, requires: [.keyAccessShape]) { () throws(FPSv2Error) -> Outcome in
            var accepted: [String] = []
            for url in options.acceptedKeyServiceURLs.compactMap(KeyServiceURL.normalize) where !accepted.contains(url) {
                accepted.append(url)
            }
            for (index, access) in (manifest?.keyAccess ?? []).enumerated() {
                guard let normalized = KeyServiceURL.normalize(access.url) else {
                    throw refuse(.keyAccessURL, "keyAccess[\(index)].url is not an https origin with an empty path")
                }
                if index == 0 { keyServiceURL = normalized }
                guard accepted.contains(normalized) else {
                    // Both URLs are normalized origins (no path, query or user-info): safe to show.
                    let acceptedText = switch accepted.count {
                    case 0: "no key service is accepted"
                    case 1: "the accepted one is \(accepted[0])"
                    default: "the accepted ones are \(accepted.joined(separator: ", "))"
                    }
                    throw refuse(.keyAccessURL, "the package's key service is \(normalized), and \(acceptedText)")
                }
            }
            return .passed("")
        }
        step(.keyAccessSameURL, requires: [.keyAccessShape]) { () throws(FPSv2Error) -> Outcome in
            let urls = Set((manifest?.keyAccess ?? []).map(\.url))
            guard urls.count <= 1 else { throw refuse(.keyAccessSameURL, "the keyAccess objects name different urls") }
            return .passed("")
        }
        step(.policyBindingForm, requires: [.manifestSchema]) { () throws(FPSv2Error) -> Outcome in
            for (index, access) in (manifest?.keyAccess ?? []).enumerated() {
                guard access.policyBinding.alg == "HS256" else {
                    throw refuse(.policyBindingForm, "keyAccess[\(index)].policyBinding.alg is not HS256")
                }
                guard let bytes = try? Base64.decode(access.policyBinding.hash) else {
                    throw refuse(.policyBindingForm, "keyAccess[\(index)].policyBinding hash is not canonical standard base64")
                }
                guard bytes.count == 32 else {
                    throw refuse(.policyBindingForm, "keyAccess[\(index)].policyBinding hash decodes to \(bytes.count) bytes, not the 32-byte digest")
                }
            }
            return .passed("")
        }
        step(.methodIV, requires: [.manifestSchema]) { () throws(FPSv2Error) -> Outcome in
            guard let text = manifest?.method.iv, let bytes = try? Base64.decode(text), bytes.count == 16 else {
                throw refuse(.methodIV, "method.iv is not canonical standard base64 of 16 bytes")
            }
            iv = bytes
            return .passed("")
        }
    }
}
