/// A `Content-Range` value in byte units (RFC 9110 §14.4): `bytes FIRST-LAST/COMPLETE` or, on
/// 416, `bytes */COMPLETE`. An unknown complete length (`/*`) is refused: a random-access reader
/// needs the size.
struct ContentRange: Equatable {
    /// `nil` for the unsatisfied form.
    let range: ClosedRange<UInt64>?
    let completeLength: UInt64

    init(range: ClosedRange<UInt64>?, completeLength: UInt64) {
        self.range = range
        self.completeLength = completeLength
    }

    init(parsing text: String) throws(TransportError) {
        let failure = TransportError(.invalidRange, "a Content-Range header is malformed")
        guard text.hasPrefix("bytes ") else { throw failure }
        let rest = text.dropFirst("bytes ".count)
        let halves = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, let complete = Self.number(halves[1]) else { throw failure }
        if halves[0] == "*" {
            self.init(range: nil, completeLength: complete)
            return
        }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
              first <= last, last < complete else { throw failure }
        self.init(range: first...last, completeLength: complete)
    }

    private static func number(_ text: Substring) -> UInt64? {
        guard (1...19).contains(text.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(text)
    }
}
