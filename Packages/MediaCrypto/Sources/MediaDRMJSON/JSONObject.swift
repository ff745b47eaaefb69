/// A JSON object: members in their order, keys unique.
///
/// Keys are unique under Swift `String` equality, which is Unicode canonical equivalence: the
/// parser refuses "é" next to "e\u{301}" as a duplicate, because any consumer that indexes by
/// string would merge them and two readers could then disagree about the value.
public struct JSONObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: JSONValue)

    public private(set) var members: [Element]
    /// Key positions, kept only for objects larger than `indexThreshold`: small objects (the vast
    /// majority) are searched linearly, which is faster than hashing and allocates nothing.
    private var index: [String: Int]
    private static let indexThreshold = 16

    public init() {
        members = []
        index = [:]
    }

    /// Members in order. A repeated key replaces the earlier value in place (the parser never
    /// builds such an object; it refuses duplicates).
    public init(_ members: [(String, JSONValue)]) {
        self.init()
        self.members.reserveCapacity(members.count)
        for (key, value) in members {
            self[key] = value
        }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// For the parser: appends a member, returning false when the key is already present.
    mutating func appendUnique(_ key: String, _ value: JSONValue) -> Bool {
        if position(of: key) != nil { return false }
        append(key, value)
        return true
    }

    func contains(key: String) -> Bool { position(of: key) != nil }

    private func position(of key: String) -> Int? {
        if members.count <= JSONObject.indexThreshold {
            return members.firstIndex { $0.key == key }
        }
        return index[key]
    }

    private mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
        if members.count > JSONObject.indexThreshold {
            if index.isEmpty {
                rebuildIndex()
            } else {
                index[key] = members.count - 1
            }
        }
    }

    private mutating func rebuildIndex() {
        index = [:]
        guard members.count > JSONObject.indexThreshold else { return }
        index.reserveCapacity(members.count)
        for (position, member) in members.enumerated() {
            index[member.key] = position
        }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// Reading returns the member's value; setting replaces it in place or appends a new member;
    /// setting nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return members[position].value
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[Element]> {
        members.makeIterator()
    }

    /// Objects are equal when they hold the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (key, value) in lhs.members {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }
}
