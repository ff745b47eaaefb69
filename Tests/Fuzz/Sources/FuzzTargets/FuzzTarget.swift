/// One fuzz target: an entry point that runs one input through a parser the way the system
/// runs it. Refusals (typed errors) are expected outcomes and return normally; a broken
/// invariant (a round trip that changes the value, an accepted input that re-reads differently)
/// throws `FuzzViolation`. A crash, hang or unbounded allocation is caught by the harness's
/// sanitizer, or by the replay tests crashing.
public struct FuzzTarget: Sendable {
    /// How libFuzzer's mutations are applied to this target's inputs.
    public enum Mutation: Sendable {
        /// libFuzzer's byte-level mutations of the whole input.
        case bytes
        /// The input is a ZIP archive: one entry's bytes are mutated and the archive is
        /// rebuilt with correct sizes and CRCs (`ArchiveMutator`), so the checks past the CRC
        /// are reached.
        case archiveEntries(ArchiveMutator.Layout)
    }

    /// The target's name: its corpus folder `Tests/Fuzz/corpus/<name>/` and `FUZZ_TARGET=<name>`.
    public let name: String
    public let summary: String
    public let mutation: Mutation
    let body: @Sendable ([UInt8]) throws(FuzzViolation) -> FuzzOutcome

    init(_ name: String, _ summary: String, mutation: Mutation = .bytes,
         _ body: @escaping @Sendable ([UInt8]) throws(FuzzViolation) -> FuzzOutcome) {
        self.name = name
        self.summary = summary
        self.mutation = mutation
        self.body = body
    }

    /// Runs one input.
    @discardableResult
    public func run(_ input: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        try body(input)
    }
}

/// How far one input went. Every checked-in seed must be `accepted`: the replay tests check
/// that the seeds are valid inputs that reach the end of the path, so that fuzzing starts deep.
public enum FuzzOutcome: Sendable, Equatable {
    /// The input passed every check of the target's path (for several readers: at least one
    /// reader took it in full).
    case accepted
    /// A parser or check refused the input, as it should refuse hostile input.
    case refused
}

/// An invariant a target checks was broken by an input: a finding, like a crash.
public struct FuzzViolation: Error, CustomStringConvertible {
    public let target: String
    public let reason: String
    public var description: String { "fuzz target \(target): \(reason)" }

    init(_ target: String, _ reason: String) {
        self.target = target
        self.reason = reason
    }
}
