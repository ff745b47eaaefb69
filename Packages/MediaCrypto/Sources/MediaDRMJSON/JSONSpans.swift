/// One step of a path into a document: an object member by key or an array element by index.
public enum JSONPathComponent: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    case key(String)
    case index(Int)

    public init(stringLiteral value: String) { self = .key(value) }
    public init(integerLiteral value: Int) { self = .index(value) }

    public var description: String {
        switch self {
        case .key(let key): return ".\(key)"
        case .index(let index): return "[\(index)]"
        }
    }
}

/// The exact byte range, in the parsed input, of every value of a document by path: from the
/// value's first byte to just past its last (surrounding whitespace excluded). `[]` is the root.
/// A binding or signature over a member can then be checked over the bytes as received instead
/// of a re-serialisation.
public struct JSONSpans: Sendable {
    private let ranges: [[JSONPathComponent]: Range<Int>]

    init(_ ranges: [[JSONPathComponent]: Range<Int>]) {
        self.ranges = ranges
    }

    public func range(of path: [JSONPathComponent]) -> Range<Int>? {
        ranges[path]
    }

    /// How many values the document holds (the root included).
    public var count: Int { ranges.count }
}
