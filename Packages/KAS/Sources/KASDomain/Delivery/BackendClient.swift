import Foundation
import MediaDRMCrypto

/// A customer backend allowed to start playbacks for its viewers (`POST /media/v1/backend/playback`,
/// docs/delivery.md "DRM-X's backend call"), one entry of `delivery.backendClients`:
///
/// ```json
/// {"id": "school-backend", "secretFile": "school-backend.secret", "issuer": "https://school.example", "callsPerMinute": 120}
/// ```
///
/// The backend authenticates with HTTP Basic, `id:secret`; the secret is the content of a 0600
/// file (a final line break is not part of it), never the configuration file itself. Its viewers
/// are keyed by `issuer` and their subject, as every viewer is (docs/kas.md "Viewers keyed by
/// issuer and subject").
public struct BackendClient: Sendable, Equatable {
    /// Calls one client may make a minute when `callsPerMinute` is not given.
    public static let defaultCallsPerMinute = 120
    static let callsPerMinuteRange = 1...1_000_000
    /// A secret shorter than this is refused when the KAS starts (16 random bytes as hex is 32).
    static let minimumSecretBytes = 32

    public var id: String
    public var secretFile: String
    public var issuer: String
    public var callsPerMinute: Int

    public init(id: String, secretFile: String, issuer: String, callsPerMinute: Int = BackendClient.defaultCallsPerMinute) {
        self.id = id
        self.secretFile = secretFile
        self.issuer = issuer
        self.callsPerMinute = callsPerMinute
    }

    /// 1 to 64 letters, digits, `.`, `_` or `-`: no `:`, which ends the id in a Basic credential.
    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}

/// The configured backend clients with their secrets read (each file 0600, at least 32 bytes),
/// checked by `client(id:secret:)` in constant time.
struct BackendCredentials: Sendable {
    private let clients: [String: (client: BackendClient, digest: [UInt8])]

    init(_ clients: [BackendClient]) throws(DeliverySecretError) {
        var table: [String: (client: BackendClient, digest: [UInt8])] = [:]
        for client in clients {
            let secret = Self.trimmed(try DeliverySecretError.readFile(client.secretFile, "backend client secret file"))
            guard secret.count >= BackendClient.minimumSecretBytes else {
                throw DeliverySecretError("the backend client secret file '\(client.secretFile)' holds fewer than "
                                          + "\(BackendClient.minimumSecretBytes) bytes")
            }
            table[client.id] = (client, Self.digest(secret))
        }
        self.clients = table
    }

    /// The client `id` names if `secret` is its secret. The id is not secret; the secrets are
    /// compared as SHA-256 digests in constant time, so neither their bytes nor their length
    /// shape the time taken.
    func client(id: String, secret: [UInt8]) -> BackendClient? {
        guard let entry = clients[id] else { return nil }
        return ConstantTime.equals(Self.digest(secret), entry.digest) ? entry.client : nil
    }

    /// The file's bytes without a final line break (`openssl rand -hex 32 > file` writes one).
    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        return bytes
    }

    private static func digest(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256Digest.hash(data: bytes)) }
}
