/// One verb of a tool (`tdf encrypt`): its declared options and arguments, and the work it does.
public struct ToolVerb: Sendable {
    public typealias Action = @Sendable (ParsedArguments, Console) throws -> Void

    public let name: String
    /// One line, shown in the tool's verb list and as the verb's overview.
    public let summary: String
    /// Optional paragraphs shown after the overview in the verb's help.
    public let discussion: String?
    public let options: [ToolOption]
    public let arguments: [ToolArgument]
    public let action: Action

    public init(_ name: String, summary: String, discussion: String? = nil,
                options: [ToolOption] = [], arguments: [ToolArgument] = [],
                action: @escaping Action) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.action = action
    }
}
