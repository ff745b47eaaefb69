/// A declared positional argument of a verb.
public struct ToolArgument: Sendable, Equatable {
    public let name: String
    public let help: String
    public let isOptional: Bool
    /// Takes every remaining positional argument; only the last declared argument may be variadic.
    public let isVariadic: Bool

    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isVariadic = variadic
    }

    var usageFragment: String {
        let core = isVariadic ? "<\(name)> ..." : "<\(name)>"
        return isOptional ? "[\(core)]" : core
    }
}
