/// A tag the model does not interpret, kept as written in lenient mode: `#<name>[:<value>]`.
/// `name` starts with `EXT` and excludes the `#`.
public struct HLSTag: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    var line: String {
        if let value { return "#\(name):\(value)" }
        return "#\(name)"
    }
}
