/// One element of an MPD (ISO/IEC 23009-1) as it is written: a name, attributes in the order
/// given, then either text or child elements. `MPDWriter` serialises it; nothing else writes an
/// MPD's XML, so escaping happens in one place for the packager's MPD and the KAS's fps-v2 views.
public struct MPDElement: Sendable, Equatable {
    public var name: String
    public var attributes: [(name: String, value: String)]
    public var children: [MPDElement]
    public var text: String?

    public init(_ name: String, _ attributes: [(String, String)] = [], children: [MPDElement] = [], text: String? = nil) {
        self.name = name
        self.attributes = attributes.map { (name: $0.0, value: $0.1) }
        self.children = children
        self.text = text
    }

    public static func == (a: MPDElement, b: MPDElement) -> Bool {
        a.name == b.name && a.attributes.elementsEqual(b.attributes) { $0.name == $1.name && $0.value == $1.value }
            && a.children == b.children && a.text == b.text
    }
}
