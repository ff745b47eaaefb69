/// The command line was fine but the work failed (unreadable input, bad key, corrupt archive).
/// Reported as `tool: error: <message>`, exit 1. Messages name the file and field at fault and
/// never carry secrets.
public struct ToolFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
