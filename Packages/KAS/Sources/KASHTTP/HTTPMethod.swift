/// An HTTP request method. Any token the parser accepted can appear here; routes match by exact
/// (case-sensitive) text, as RFC 9110 §9.1 says methods are compared.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let delete = HTTPMethod("DELETE")
    public static let patch = HTTPMethod("PATCH")
    public static let options = HTTPMethod("OPTIONS")

    static let known: Set<HTTPMethod> = [.get, .head, .post, .put, .delete, .patch, .options]

    /// The method for logs and metric labels: a method a client invented is client data, so it is
    /// reported as `OTHER` instead of being copied into a log line or a label.
    public var loggable: String { Self.known.contains(self) ? rawValue : "OTHER" }

    public var description: String { rawValue }
}
