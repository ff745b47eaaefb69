/// The app could not be assembled (a store that does not open, a setting the media service
/// refuses). The reason names the file or setting, never key material.
public struct KASApplicationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "KAS start-up error: \(reason)" }
}
