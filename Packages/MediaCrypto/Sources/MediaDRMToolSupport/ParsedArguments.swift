/// What the parser found on a verb's command line, keyed by the declared long option names and
/// argument names. Typed accessors turn bad values into usage errors that name the option.
public struct ParsedArguments: Sendable, Equatable {
    public let verb: String
    var flags: Set<String>
    var optionValues: [String: [String]]
    var argumentValues: [String: [String]]

    init(verb: String) {
        self.verb = verb
        flags = []
        optionValues = [:]
        argumentValues = [:]
    }

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of the single-valued option `--name`, or nil when absent.
    public func value(_ name: String) -> String? { optionValues[name]?.last }

    /// Every value of the repeatable option `--name`, in command-line order.
    public func values(_ name: String) -> [String] { optionValues[name] ?? [] }

    /// The value of `--name`; a usage error when absent (for options required only in some modes).
    public func requiredValue(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else { throw UsageError("missing required option '--\(name)'") }
        return value
    }

    /// The positional argument `<name>`, or nil when an optional one was left out.
    public func argument(_ name: String) -> String? { argumentValues[name]?.first }

    /// Every value taken by the variadic positional argument `<name>`.
    public func arguments(_ name: String) -> [String] { argumentValues[name] ?? [] }

    /// The positional argument `<name>`; a usage error when absent.
    public func requiredArgument(_ name: String) throws(UsageError) -> String {
        guard let value = argument(name) else { throw UsageError("missing argument <\(name)>") }
        return value
    }

    /// `--name` as a decimal integer within `range`; nil when the option was not given.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }), !text.isEmpty,
              let number = Int(text), range.contains(number) else {
            throw UsageError("invalid value '\(text)' for '--\(name)': expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
