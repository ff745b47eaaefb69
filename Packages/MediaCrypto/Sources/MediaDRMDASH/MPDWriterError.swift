/// Why an `MPDElement` tree cannot be written as XML 1.0: a fixed sentence naming the element,
/// name or character (never a value, which may be a signed URL).
public struct MPDWriterError: Error, Sendable, Equatable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}
