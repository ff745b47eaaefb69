/// One element of an XML document as the packager writes it (the DASH MPD): a name, attributes
/// in the order given, then either text or child elements. `XMLWriter` serialises it; nothing
/// else in the packager writes XML, so escaping happens in one place.
struct XMLElement: Sendable, Equatable {
    var name: String
    var attributes: [(name: String, value: String)]
    var children: [XMLElement]
    var text: String?

    init(_ name: String, _ attributes: [(String, String)] = [], children: [XMLElement] = [], text: String? = nil) {
        self.name = name
        self.attributes = attributes.map { (name: $0.0, value: $0.1) }
        self.children = children
        self.text = text
    }

    static func == (a: XMLElement, b: XMLElement) -> Bool {
        a.name == b.name && a.attributes.elementsEqual(b.attributes) { $0.name == $1.name && $0.value == $1.value }
            && a.children == b.children && a.text == b.text
    }
}
