import Foundation
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMOffline
@testable import Client

/// A library on a real file system with titles licensed as a download or a renewal leaves them,
/// without a network: a key service's real ES256 signer, its key set pinned and its licences
/// verified and recorded through the calls `OfflineDownload` and `OfflineLicenseActions.renew`
/// make (`pin`, `verifyIssued`, `recordLicensed`), and plays checked by `OfflinePlayChecks` as
/// `OfflinePlayback` does before the package.
struct LibraryFixture {
    static let keyService = "https://kas.example"
    static let asset = "0f8fad5b-d9cb-469f-a165-70867728950e"
    static let now: Int64 = 1_800_000_000
    static let window: Int64 = 7_200
    static let duration: Int64 = 86_400

    let library: OfflineLibrary
    let signer: ECP256.Signing.PrivateKey

    init(path: String? = nil) throws {
        library = try OfflineLibrary(path: try path ?? makeTemporaryDirectory().appendingPathComponent("mediadrm").path)
        signer = try ECP256.Signing.PrivateKey()
    }

    static func jwks(_ signers: [ECP256.Signing.PrivateKey], keyIDs: [String] = ["l1", "l2"]) -> JSONObject {
        JWKSet(keys: zip(signers, keyIDs).map { JWK(publicKey: $0.publicKey, keyID: $1) }).jsonObject
    }

    var jwks: JSONObject { Self.jwks([signer]) }

    func path(_ relative: String) -> String { library.path + "/" + relative }

    /// A licence for this library's device key with fresh content keys, signed by `signer`.
    func licence(signer: ECP256.Signing.PrivateKey? = nil, keyID: String = "l1", issuedAt: Int64 = now,
                 expiresAt: Int64? = nil, window: Int64? = window) throws -> String {
        let device = try OfflineDeviceKey(try library.deviceKey().publicKey)
        let keys = try ["video", "audio"].map { name in
            guard let kind = MediaComponentKind(rawValue: name) else { throw TestSupportError("no \(name) component kind") }
            return try OfflineLicenseKey(component: kind, keyID: "ab", key: SecretKey(data: try SecureRandom.bytes(count: 16)),
                                         device: device)
        }
        let license = OfflineLicense(asset: Self.asset, subject: "alice", licenseID: "lid-1", deviceThumbprint: device.thumbprint,
                                     issuedAt: issuedAt, expiresAt: expiresAt ?? issuedAt + Self.duration,
                                     playbackWindowSeconds: window, rentalEndsAt: nil, keys: keys)
        return try license.signed(with: JWSSigningKey(p256: signer ?? self.signer, keyID: keyID))
    }

    func fetched(_ jwks: JSONObject? = nil, authenticated: Bool = true) -> FetchedSigningKeys {
        FetchedSigningKeys(keyService: Self.keyService, jwks: jwks ?? self.jwks, authenticated: authenticated)
    }

    /// What `player download` records once the package is in place.
    @discardableResult
    func download(_ name: String, now: Int64 = now) throws -> OfflineTitle {
        let clock = try library.observeClockOnline(now: now)
        let compact = try licence(issuedAt: now)
        let check = try library.verifyIssued(compact, fetched: fetched(), assetID: Self.asset)
        let title = OfflineTitle(name: name, source: "https://cdn.example/\(name).tdf", keyService: Self.keyService,
                                 assetID: Self.asset, viewer: "alice", packageBytes: 1234,
                                 packageSHA256: String(repeating: "ab", count: 32), state: .licensed, license: compact,
                                 licenseID: check.license.licenseID, expiresAt: check.license.expiresAt)
        return try library.recordLicensed(title, issuedAt: check.license.issuedAt, now: clock, firstPlayedAt: nil)
    }

    /// What `player license renew` records once the key service answered.
    @discardableResult
    func renew(_ name: String, now: Int64) throws -> OfflineTitle {
        var title = try library.requireTitle(name)
        let clock = try library.observeClockOnline(now: now)
        let firstPlayedAt = library.knownFirstPlay(of: title)
        let compact = try licence(issuedAt: now)
        let check = try library.verifyIssued(compact, fetched: fetched(), assetID: Self.asset)
        title.license = compact
        title.expiresAt = check.license.expiresAt
        return try library.recordLicensed(title, issuedAt: check.license.issuedAt, now: clock, firstPlayedAt: firstPlayedAt)
    }

    /// The checks of `player play --title` before the package, and the first play sealed as a play does.
    @discardableResult
    func play(_ name: String, now: Int64) throws(OfflineError) -> OfflinePlayChecks {
        let checks = try OfflinePlayChecks(library: library, name: name, now: now)
        _ = try checks.recordFirstPlay(in: library)
        return checks
    }

    /// The title record as a JSON object, to change it as a person with an editor would.
    func titleRecord(_ name: String) throws -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path("titles/\(name)/title.json")),
              case .object(let object) = try JSONParser.parse(data) else { throw TestSupportError("no title record for \(name)") }
        return object
    }

    func writeTitleRecord(_ object: JSONObject, _ name: String) throws {
        try JSONWriter.write(.object(object)).write(to: URL(fileURLWithPath: path("titles/\(name)/title.json")))
    }

    /// Flips one bit in the middle of a file.
    func flipByte(_ relative: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path(relative)))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path(relative)))
    }

    func copy(_ from: String, over to: String) throws {
        try FileManager.default.contents(atPath: path(from))?.write(to: URL(fileURLWithPath: path(to)))
    }

    func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: path(relative)) }
}
