// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import Foundation

/// The secrets of one package: per component a 16-byte key and a 16-byte KID, and one IV for
/// all (fps-v2 §5.2 #4, §5.4). Keys are independent random bytes; two components never share
/// one. The description never shows key bytes.
public struct PackageKeys: Sendable, CustomStringConvertible {
    public struct Component: Sendable {
        public let id: String
        public let key: SecretKey
        public let keyID: [UInt8]
    }

    public let components: [Component]
    public let iv: [UInt8]

    public init(componentIDs: [String]) throws(PackagerError) {
        guard Set(componentIDs).count == componentIDs.count else {
            throw PackagerError(.invalidArgument, "component ids must be unique")
        }
        var made: [Component] = []
        for id in componentIDs {
            var key: SecretKey
            repeat {
                key = SecretKey(data: try Self.randomBytes(16))
            } while made.contains { $0.key == key }
            var kid: [UInt8]
            repeat { kid = try Self.randomBytes(16) } while made.contains { $0.keyID == kid }
            made.append(Component(id: id, key: key, keyID: kid))
        }
        components = made
        iv = try Self.randomBytes(16)
    }

    public subscript(id: String) -> Component? { components.first { $0.id == id } }

    public var description: String { "PackageKeys(\(components.map(\.id).joined(separator: ", ")))" }

    static func randomBytes(_ count: Int) throws(PackagerError) -> [UInt8] {
        do { return try SecureRandom.bytes(count: count) } catch {
            throw PackagerError(.cryptoFailure, "the system random generator failed")
        }
    }
}
