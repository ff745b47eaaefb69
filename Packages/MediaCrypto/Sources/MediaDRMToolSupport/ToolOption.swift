/// A declared `--option` of a verb. Help text and parsing are both generated from these
/// declarations, so they cannot drift apart.
public struct ToolOption: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Present or absent; takes no value.
        case flag
        /// Takes exactly one value; giving it twice is a usage error.
        case single
        /// Takes one value per occurrence; may be repeated.
        case repeated
    }

    /// Long name without the leading dashes, e.g. `output` for `--output`.
    public let name: String
    /// Optional one-letter short form, e.g. `o` for `-o`.
    public let short: Character?
    public let kind: Kind
    /// Placeholder shown in usage, e.g. `file` for `--output <file>`.
    public let valueName: String
    public let help: String
    public let isRequired: Bool

    public init(_ name: String, short: Character? = nil, kind: Kind, valueName: String = "value",
                help: String, required: Bool = false) {
        self.name = name
        self.short = short
        self.kind = kind
        self.valueName = valueName
        self.help = help
        self.isRequired = required && kind != .flag
    }

    public static func flag(_ name: String, short: Character? = nil, help: String) -> ToolOption {
        ToolOption(name, short: short, kind: .flag, help: help)
    }

    public static func single(_ name: String, short: Character? = nil, valueName: String = "value",
                              help: String, required: Bool = false) -> ToolOption {
        ToolOption(name, short: short, kind: .single, valueName: valueName, help: help, required: required)
    }

    public static func repeated(_ name: String, short: Character? = nil, valueName: String = "value",
                                help: String, required: Bool = false) -> ToolOption {
        ToolOption(name, short: short, kind: .repeated, valueName: valueName, help: help, required: required)
    }

    /// The conventional `--json` switch for machine-readable output on stdout.
    public static let json = ToolOption.flag("json", help: "Print machine-readable JSON on stdout.")
    /// The conventional `--quiet` switch that silences progress lines on stderr.
    public static let quiet = ToolOption.flag("quiet", short: "q", help: "Do not print progress on stderr.")

    var displayName: String { "--\(name)" }

    var usageFragment: String {
        switch kind {
        case .flag: return displayName
        case .single: return "\(displayName) <\(valueName)>"
        case .repeated: return "\(displayName) <\(valueName)> ..."
        }
    }
}
