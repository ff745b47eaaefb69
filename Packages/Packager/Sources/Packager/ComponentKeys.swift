import Crypto

/// The content keys of one package: fps-v2 gives every component (video, audio) its own
/// 16-byte AES-128 key, so a compromised audio key never unlocks the video.
public struct ComponentKeys: Sendable {
    public let keys: [String: SymmetricKey]

    /// Fresh random keys for the named components. Component ids must be unique.
    public init(components: [String]) throws {
        guard Set(components).count == components.count else {
            throw CryptoError(.invalidInput, "component ids must be unique")
        }
        var keys: [String: SymmetricKey] = [:]
        for id in components {
            keys[id] = try SymmetricKey(size: .bits128)
        }
        self.keys = keys
    }

    public subscript(component: String) -> SymmetricKey? { keys[component] }
}
