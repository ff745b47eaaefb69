/// Turns the tokens after the verb into `ParsedArguments`, strictly: every option must be
/// declared, every value present, every positional argument accounted for.
///
/// Accepted forms: `--name value`, `--name=value`, `-n value`, flags `--name` / `-n`, and `--`
/// to end option parsing (everything after it is positional, even if it starts with `-`).
/// A lone `-` is positional (conventionally stdin/stdout).
enum ArgumentParser {
    static func parse(_ tokens: [String], verb: ToolVerb) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments(verb: verb.name)
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false

        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }

            let (option, inlineValue) = try lookUp(token, in: verb)
            switch option.kind {
            case .flag:
                if inlineValue != nil {
                    throw UsageError("option '--\(option.name)' takes no value")
                }
                parsed.flags.insert(option.name)
            case .single, .repeated:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < tokens.count, !looksLikeOption(tokens[index]) else {
                        throw UsageError("missing value for option '--\(option.name)'")
                    }
                    value = tokens[index]
                    index += 1
                }
                if option.kind == .single, parsed.optionValues[option.name] != nil {
                    throw UsageError("option '--\(option.name)' given more than once")
                }
                parsed.optionValues[option.name, default: []].append(value)
            }
        }

        for option in verb.options where option.isRequired && parsed.optionValues[option.name] == nil {
            throw UsageError("missing required option '--\(option.name)'")
        }
        try assign(positionals, to: verb.arguments, in: &parsed)
        return parsed
    }

    /// True for tokens that are plainly options rather than values, so `-o --kas-url x` reports
    /// the missing value instead of writing to a file named `--kas-url`. A value that really
    /// starts with `-` can be given as `--name=-value`.
    static func looksLikeOption(_ token: String) -> Bool {
        token.count > 1 && token.hasPrefix("-")
    }

    static func isHelpRequest(_ tokens: [String]) -> Bool {
        for token in tokens {
            if token == "--" { return false }
            if token == "--help" || token == "-h" { return true }
        }
        return false
    }

    private static func lookUp(_ token: String, in verb: ToolVerb) throws(UsageError) -> (ToolOption, String?) {
        if token.hasPrefix("--") {
            let body = token.dropFirst(2)
            let name: Substring
            let inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = body[body.startIndex..<equals]
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = body
                inlineValue = nil
            }
            guard let option = verb.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)'")
            }
            return (option, inlineValue)
        }
        let body = token.dropFirst()
        guard body.count == 1, let letter = body.first,
              let option = verb.options.first(where: { $0.short == letter }) else {
            throw UsageError("unknown option '\(token)'")
        }
        return (option, nil)
    }

    private static func assign(_ positionals: [String], to declared: [ToolArgument],
                               in parsed: inout ParsedArguments) throws(UsageError) {
        var remaining = positionals[...]
        for argument in declared {
            if argument.isVariadic {
                if remaining.isEmpty && !argument.isOptional {
                    throw UsageError("missing argument <\(argument.name)>")
                }
                parsed.argumentValues[argument.name] = Array(remaining)
                remaining = []
                continue
            }
            guard let value = remaining.popFirst() else {
                if argument.isOptional { continue }
                throw UsageError("missing argument <\(argument.name)>")
            }
            parsed.argumentValues[argument.name] = [value]
        }
        if let extra = remaining.first {
            throw UsageError("unexpected argument '\(extra)'")
        }
    }
}
