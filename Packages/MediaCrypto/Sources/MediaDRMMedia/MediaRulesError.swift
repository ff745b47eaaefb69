/// Why an `arkavo:media` value was refused: the member and what is wrong with it.
public struct MediaRulesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// nil when the problem is the member as a whole (not an object, an unknown member).
    public let member: MediaRules.Member?
    /// What is wrong, without the member's name ("must be a positive number of seconds").
    public let problem: String

    public init(_ member: MediaRules.Member?, _ problem: String) {
        self.member = member
        self.problem = problem
    }

    /// "arkavo:media maxConcurrentStreams must be from 1 to 1000".
    public var reason: String {
        [MediaRules.policyKey, member?.rawValue, problem].compactMap { $0 }.joined(separator: " ")
    }

    public var description: String { reason }
}
