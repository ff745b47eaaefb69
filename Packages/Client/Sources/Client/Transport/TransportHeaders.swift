/// One header field as sent or received.
public struct HTTPHeaderField: Sendable, Equatable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Ordered header fields with case-insensitive lookup.
public struct TransportHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPHeaderField]

    public init() { fields = [] }

    public init(_ fields: [HTTPHeaderField]) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeaderField(name: $0.0, value: $0.1) }
    }

    public mutating func add(name: String, value: String) {
        fields.append(HTTPHeaderField(name: name, value: value))
    }

    /// The first value of the field, compared case-insensitively.
    public subscript(name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    public func values(for name: String) -> [String] {
        let wanted = name.lowercased()
        return fields.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    public var count: Int { fields.count }

    /// Whole seconds from a numeric `Retry-After` field (RFC 9110 §10.2.3; the HTTP-date form is
    /// not read), capped at a day; nil when absent or not 1 to 6 digits.
    public var retryAfterSeconds: Int? {
        guard let value = self["retry-after"], (1...6).contains(value.utf8.count),
              value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int(value) else { return nil }
        return Swift.min(seconds, 86_400)
    }

    public func makeIterator() -> IndexingIterator<[HTTPHeaderField]> { fields.makeIterator() }
}

/// Rules for header fields a caller asks to send.
enum HeaderRules {
    /// Fields the transport owns: the credential goes only through `Credential`, and framing
    /// headers are libcurl's, so a caller can neither smuggle a token nor desynchronise framing.
    static let reserved: Set<String> = [
        "authorization", "proxy-authorization", "host", "content-length", "transfer-encoding",
        "connection", "expect", "te", "upgrade", "trailer", "keep-alive", "proxy-connection",
    ]

    static func isToken(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 256 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// Visible ASCII, spaces and tabs; no CR, LF or NUL, so a value cannot end its line.
    static func isValidValue(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count <= 8 << 10 else { return false }
        return bytes.allSatisfy { $0 == 0x09 || (0x20...0x7e).contains($0) }
    }

    static func validate(_ headers: TransportHeaders) throws(TransportError) {
        guard headers.count <= 100 else { throw TransportError(.invalidRequest, "a request has more than 100 header fields") }
        for field in headers {
            guard isToken(field.name) else {
                throw TransportError(.invalidRequest, "a request header name is not an RFC 9110 token")
            }
            guard isValidValue(field.value) else {
                throw TransportError(.invalidRequest, "a request header value has a control or non-ASCII character")
            }
            guard !reserved.contains(field.name.lowercased()) else {
                throw TransportError(.invalidRequest, "a request sets a header the transport owns (credentials go through Credential)")
            }
        }
    }
}
