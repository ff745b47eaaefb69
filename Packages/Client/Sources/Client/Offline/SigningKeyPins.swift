import Foundation
import MediaDRMJSON

/// The licence-signing keys as a key service answered `GET /media/v1/offline-signing-keys`.
struct FetchedSigningKeys: Sendable {
    /// The key service's base URL.
    let keyService: String
    /// The JWKS, checked to hold an ES256 key.
    let jwks: JSONObject
    /// Fetched over https: libcurl verified the server's certificate chain and name (the system
    /// store or `--ca`) and, with `--pin`, its public key. Plain http (allowed only to loopback)
    /// authenticates nothing.
    let authenticated: Bool
}

/// The licence-signing keys pinned per key-service origin (`signing-keys.sealed`,
/// docs/offline.md): an offline play verifies the licence with these, never with anything in
/// the title record. Pinned at download, checked again at every renewal.
///
/// The rule for a fetched key set: it is pinned for an origin that has no pin yet (the
/// download, or a renewal after the record was lost, trusts that channel for the licence
/// itself), and it replaces an origin's pin when it differs only when it was fetched over an
/// authenticated channel (the key service rotated its key, `kas keys rotate`). A changed set
/// over plain http leaves the pin as it is, and the licence must verify with the pinned keys.
extension OfflineLibrary {
    static let pinsMember = "keyServices"

    /// `scheme://host:port` of a key service URL: the pin's key (two base URLs of one origin
    /// share one key ring).
    static func keyServiceOrigin(_ url: String) throws(OfflineError) -> String {
        do throws(TransportError) {
            return try TransportURL.validate(url).origin
        } catch {
            throw OfflineError(.library, "the title's key service is not a usable URL: \(error.reason)")
        }
    }

    /// For an offline play: the keys pinned for the title's key service.
    func pinnedSigningKeys(for title: OfflineTitle) throws(OfflineError) -> JSONObject {
        guard let pins = try read(.signingKeys).object.flatMap(Self.pins) else {
            throw Self.unsealed("the library's record of the key services' licence-signing keys", title: title.name)
        }
        guard let keys = pins[try Self.keyServiceOrigin(title.keyService)] else {
            throw OfflineError(.licenseSignature, "no licence-signing keys are pinned for the title's key service, so its "
                               + "licence cannot be verified: renew it online (player license renew \(title.name))")
        }
        return keys
    }

    /// For a download or a renewal: applies the pinning rule to a fetched key set, updates the
    /// record (re-creating it when missing or broken), and returns the keys the licence must
    /// verify with. Read, changed and replaced without a lock: two runs pinning different key
    /// services at once can lose one pin, and that service's titles then ask for a renewal (a
    /// refusal, never a play on keys nobody pinned).
    func pin(_ fetched: FetchedSigningKeys) throws(OfflineError) -> JSONObject {
        let origin = try Self.keyServiceOrigin(fetched.keyService)
        var pins = try read(.signingKeys).object.flatMap(Self.pins) ?? [:]
        if let pinned = pins[origin] {
            if pinned == fetched.jwks { return pinned }
            if !fetched.authenticated { return pinned }
        }
        pins[origin] = fetched.jwks
        let services = JSONObject(pins.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.object($0.value)) })
        try write(JSONObject([(Self.pinsMember, .object(services))]), to: .signingKeys)
        return fetched.jwks
    }

    /// Origin to JWKS; nil when the record is not of that shape.
    private static func pins(_ record: JSONObject) -> [String: JSONObject]? {
        guard let services = try? record.requireObject(pinsMember) else { return nil }
        var pins: [String: JSONObject] = [:]
        for (origin, value) in services {
            guard case .object(let keys) = value else { return nil }
            pins[origin] = keys
        }
        return pins
    }
}
