/// Every failure of the MP4 module. Compared by `code`; `reason` is a fixed sentence that names
/// the box, the field and the limit involved (never media payload or key bytes).
public struct MP4Error: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The input ends before the structure it announces.
        case truncated
        /// A box or descriptor size is impossible: smaller than its header, past its parent's end,
        /// or not matching what its fields consume.
        case invalidSize
        /// A field holds a value the specification forbids (or two fields contradict each other).
        case invalidField
        /// An entry count cannot fit in the bytes left, or exceeds a safety limit.
        case countTooLarge
        /// A full box carries a version this module does not know.
        case unsupportedVersion
        /// Boxes nest deeper than `DecodingOptions.maximumDepth`.
        case tooDeep
        /// A mandatory child box is missing or appears more than once.
        case missingBox
        /// The byte source failed to read.
        case io
    }

    public let code: Code
    public let reason: String
    /// The four-character code of the box being read or written, when known.
    public let box: FourCC?
    /// The specification's name of the offending field, when there is one.
    public let field: String?

    public init(_ code: Code, _ reason: String, box: FourCC? = nil, field: String? = nil) {
        self.code = code
        self.reason = reason
        self.box = box
        self.field = field
    }

    public var description: String { "mp4 error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: MP4Error, rhs: MP4Error) -> Bool { lhs.code == rhs.code }

    static func truncated(_ box: FourCC?) -> MP4Error {
        MP4Error(.truncated, "input ends inside '\(box?.description ?? "top level")'", box: box)
    }

    static func invalidSize(_ box: FourCC?, _ what: String) -> MP4Error {
        MP4Error(.invalidSize, "'\(box?.description ?? "top level")': \(what)", box: box)
    }

    static func invalidField(_ box: FourCC?, _ field: String, _ why: String = "value not allowed") -> MP4Error {
        MP4Error(.invalidField, "'\(box?.description ?? "?")'.\(field): \(why)", box: box, field: field)
    }

    static func countTooLarge(_ box: FourCC?, _ field: String) -> MP4Error {
        MP4Error(.countTooLarge, "'\(box?.description ?? "?")'.\(field) exceeds the bytes left or the entry limit",
                 box: box, field: field)
    }

    static func unsupportedVersion(_ box: FourCC?, _ version: UInt8) -> MP4Error {
        MP4Error(.unsupportedVersion, "'\(box?.description ?? "?")' version \(version) is not supported",
                 box: box, field: "version")
    }

    static func missingBox(_ parent: FourCC?, _ child: String) -> MP4Error {
        MP4Error(.missingBox, "'\(parent?.description ?? "?")' must hold exactly one '\(child)'", box: parent)
    }
}
