/// A title's short media id (docs/delivery.md#catalog): 8 letters and digits, the shape of the
/// opaque media ids delivery platforms hand to apps and put in page URLs (`/v2/media/abcd1234`).
/// The KAS's catalog gives each title one, accepted wherever an asset id is; the policy uuid
/// stays the asset id, the key binding and the audit's name for the title. Case matters
/// (`Ab12cd34` is not `ab12cd34`); a uuid (36 characters) can never be one, so the two never
/// collide. Defined here because the KAS draws and stores them and players accept them.
public struct MediaID: Sendable, Hashable, CustomStringConvertible {
    public static let length = 8
    /// The 62 symbols, in the order a random draw maps its values to.
    public static let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    public let text: String
    public var description: String { text }

    /// The id `text` spells; nil unless it is exactly 8 ASCII letters and digits.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == Self.length, bytes.allSatisfy({ Self.symbols.contains($0) }) else { return nil }
        self.text = text
    }
}
