import Foundation

/// An ISO BMFF box. Each box describes its fields once, in `describe`, for both directions.
public protocol MP4Box: Sendable, Equatable {
    /// The box types this struct reads (a struct may serve several, as `ftyp` and `styp`).
    static var supportedTypes: [FourCC] { get }
    /// The type written in the header.
    var boxType: FourCC { get }
    /// An empty box that `describe` fills when reading.
    init()
    /// The field-by-field description shared by the reader and the writer.
    mutating func describe(_ coder: inout BoxCoder) throws(MP4Error)
}

extension MP4Box {
    /// Equality across existentials: same concrete type and equal values.
    public func isEqual(to other: any MP4Box) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }

    /// Parses exactly one box of this type filling `bytes`.
    public init(parsing bytes: [UInt8], options: DecodingOptions = DecodingOptions()) throws(MP4Error) {
        var coder = BoxCoder(reading: bytes, options: options)
        let box = try coder.readBox()
        guard coder.bytesLeft == 0 else { throw .invalidSize(box.boxType, "bytes follow the box") }
        guard let typed = box as? Self else {
            throw MP4Error(.invalidField, "expected a '\(Self.supportedTypes.first?.description ?? "?")' box, found '\(box.boxType)'",
                           box: box.boxType, field: "type")
        }
        self = typed
    }

    /// The serialised box: sizes recomputed, versions raised where a value needs it, every field
    /// validated. An `mdat` serialises its header only.
    public func serializedBytes() throws(MP4Error) -> [UInt8] {
        var coder = BoxCoder(writingWith: DecodingOptions())
        try coder.writeBox(self)
        return coder.output
    }

    public func serialized() throws(MP4Error) -> Data {
        Data(try serializedBytes())
    }
}

/// Reading and writing sequences of top-level boxes held in memory.
public enum BoxParser {
    /// Every box in `bytes`, in order; unknown types are kept byte for byte.
    public static func parse(_ bytes: [UInt8], baseOffset: UInt64 = 0,
                             options: DecodingOptions = DecodingOptions()) throws(MP4Error) -> [any MP4Box] {
        var coder = BoxCoder(reading: bytes, baseOffset: baseOffset, options: options)
        var list = BoxList()
        try coder.children(&list)
        return list.boxes
    }

    public static func serialize(_ boxes: [any MP4Box]) throws(MP4Error) -> [UInt8] {
        var coder = BoxCoder(writingWith: DecodingOptions())
        for box in boxes { try coder.writeBox(box) }
        return coder.output
    }
}

/// An ordered list of child boxes of any type. Order and unknown boxes are kept, so a parsed
/// container re-serialises to the same bytes.
public struct BoxList: Sendable, Equatable, RandomAccessCollection, ExpressibleByArrayLiteral {
    public var boxes: [any MP4Box]

    public init(_ boxes: [any MP4Box] = []) { self.boxes = boxes }
    public init(arrayLiteral elements: any MP4Box...) { boxes = elements }

    public var startIndex: Int { boxes.startIndex }
    public var endIndex: Int { boxes.endIndex }
    public subscript(position: Int) -> any MP4Box { boxes[position] }

    public static func == (lhs: BoxList, rhs: BoxList) -> Bool {
        lhs.boxes.count == rhs.boxes.count && zip(lhs.boxes, rhs.boxes).allSatisfy { $0.isEqual(to: $1) }
    }

    /// The first child of type `T`.
    public func first<T: MP4Box>(_: T.Type) -> T? {
        for box in boxes { if let typed = box as? T { return typed } }
        return nil
    }

    /// Every child of type `T`, in order.
    public func all<T: MP4Box>(_: T.Type) -> [T] {
        boxes.compactMap { $0 as? T }
    }

    /// Replaces the first child of type `T` (keeping its place), appends when there is none, and
    /// removes it when `box` is nil.
    public mutating func set<T: MP4Box>(_ box: T?, as _: T.Type = T.self) {
        if let index = boxes.firstIndex(where: { $0 is T }) {
            if let box { boxes[index] = box } else { boxes.remove(at: index) }
        } else if let box {
            boxes.append(box)
        }
    }

    public mutating func append(_ box: any MP4Box) { boxes.append(box) }

    /// Removes every child of type `T`.
    public mutating func removeAll<T: MP4Box>(_: T.Type) { boxes.removeAll { $0 is T } }
}

/// A box that is only a list of children.
public protocol ContainerBox: MP4Box {
    var children: BoxList { get set }
    /// Groups of alternative child types of which exactly one must be present.
    static var requiredChildren: [[FourCC]] { get }
}

extension ContainerBox {
    public static var requiredChildren: [[FourCC]] { [] }

    public var boxType: FourCC { Self.supportedTypes[0] }

    public init(children: BoxList) {
        self.init()
        self.children = children
    }

    public mutating func describe(_ coder: inout BoxCoder) throws(MP4Error) {
        if coder.isWriting { try coder.require(Self.requiredChildren, in: children) }
        try coder.children(&children)
        if coder.isReading { try coder.require(Self.requiredChildren, in: children) }
    }
}

/// A box of a type this module does not model, kept byte for byte (for `uuid` boxes the payload
/// starts with the 16-byte user type).
public struct UnknownBox: MP4Box {
    public static let supportedTypes: [FourCC] = []
    public var type: FourCC
    public var payload: [UInt8]
    public var boxType: FourCC { type }

    public init() { type = FourCC(rawValue: 0); payload = [] }
    public init(type: FourCC, payload: [UInt8]) { self.type = type; self.payload = payload }

    public mutating func describe(_ coder: inout BoxCoder) throws(MP4Error) {
        coder.headerType(&type)
        try coder.remainingBytes(&payload)
    }
}
