/// Header fields in arrival order. Names compare ASCII case-insensitively (RFC 9110 §5.1);
/// repeated fields are kept as separate entries.
public struct ServerHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (name: String, value: String)

    public private(set) var fields: [Element]

    public init() { fields = [] }

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field, or nil. Setting replaces every field of that name (nil removes).
    public subscript(name: String) -> String? {
        get { fields.first { Self.namesEqual($0.name, name) }?.value }
        set {
            remove(name: name)
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Every value of the field, in arrival order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesEqual($0.name, name) }
    }

    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    public mutating func remove(name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    public static func == (lhs: ServerHeaders, rhs: ServerHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { namesEqual($0.name, $1.name) && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison; header names are ASCII tokens, so no Unicode folding.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        let lhs = a.utf8, rhs = b.utf8
        guard lhs.count == rhs.count else { return false }
        for (x, y) in zip(lhs, rhs) where x != y {
            guard lowercased(x) == lowercased(y) else { return false }
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
