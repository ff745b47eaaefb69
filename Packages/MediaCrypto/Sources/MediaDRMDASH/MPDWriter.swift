/// Serialises an `MPDElement` tree as a UTF-8 XML 1.0 document: the declaration, two-space
/// indentation, attribute values in double quotes. Text and attribute values are escaped here
/// and only here (`&`, `<`, `>`, and in attributes `"` and the white space characters that
/// attribute normalisation would otherwise fold into spaces). Characters XML 1.0 cannot carry at
/// all (C0 controls other than tab, LF and CR; U+FFFE, U+FFFF) and names that are not XML names
/// are refused rather than dropped, so what a reader parses is exactly what was meant.
public enum MPDWriter {
    public static func document(_ root: MPDElement) throws(MPDWriterError) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        try write(root, depth: 0, into: &out)
        return out
    }

    private static func write(_ element: MPDElement, depth: Int, into out: inout String) throws(MPDWriterError) {
        try checkName(element.name)
        let indent = String(repeating: "  ", count: depth)
        out += indent + "<" + element.name
        for attribute in element.attributes {
            try checkName(attribute.name)
            out += " \(attribute.name)=\"\(try escape(attribute.value, inAttribute: true))\""
        }
        if let text = element.text {
            guard element.children.isEmpty else {
                throw MPDWriterError("the XML element <\(element.name)> has both text and children")
            }
            out += ">" + (try escape(text, inAttribute: false)) + "</\(element.name)>\n"
        } else if element.children.isEmpty {
            out += "/>\n"
        } else {
            out += ">\n"
            for child in element.children { try write(child, depth: depth + 1, into: &out) }
            out += indent + "</\(element.name)>\n"
        }
    }

    public static func escape(_ text: String, inAttribute: Bool) throws(MPDWriterError) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n" where inAttribute: out += "&#10;"
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                guard scalar.value >= 0x20, scalar.value != 0xFFFE, scalar.value != 0xFFFF else {
                    throw MPDWriterError(
                        "U+\(String(scalar.value, radix: 16, uppercase: true)) cannot be written in XML 1.0")
                }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A name as the MPD uses them: ASCII letters, digits, `_`, `-`, `.`, and one `:` for a
    /// namespace prefix, starting with a letter or `_`.
    static func checkName(_ name: String) throws(MPDWriterError) {
        let bytes = Array(name.utf8)
        func isStart(_ b: UInt8) -> Bool { (0x41 ... 0x5A).contains(b) || (0x61 ... 0x7A).contains(b) || b == 0x5F }
        let valid = bytes.first.map(isStart) == true && bytes.filter { $0 == 0x3A }.count <= 1 && name.last != ":"
            && bytes.allSatisfy { isStart($0) || (0x30 ... 0x39).contains($0) || $0 == 0x2D || $0 == 0x2E || $0 == 0x3A }
        guard valid else { throw MPDWriterError("'\(name)' is not an XML name the writer accepts") }
    }
}
