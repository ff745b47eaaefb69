/// The command line itself is wrong: unknown verb or option, missing or extra argument, a value
/// that does not parse. Reported as `tool: error: <message>` plus the verb's usage line, exit 64.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
