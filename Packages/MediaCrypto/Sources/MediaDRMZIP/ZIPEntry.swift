/// How an entry's bytes are stored.
public enum ZIPCompressionMethod: UInt16, Sendable {
    case stored = 0
    case deflate = 8
}

/// One entry as the central directory describes it.
public struct ZIPEntry: Sendable, Equatable {
    public let name: String
    public let compressionMethod: ZIPCompressionMethod
    public let crc32: UInt32
    public let compressedSize: UInt64
    public let uncompressedSize: UInt64
    /// Offset of the entry's local header.
    public let localHeaderOffset: UInt64
    /// General-purpose bit flags from the central directory.
    public let flags: UInt16
    /// MS-DOS modification time and date as stored.
    public let dosTime: UInt16
    public let dosDate: UInt16
    /// Offset of the first data byte. `nil` for entries listed from the central directory; set
    /// on the entry returned by `ZIPReader.verifiedEntry(_:)`, after the local header was checked.
    public internal(set) var dataOffset: UInt64?

    /// Position in the central directory.
    let index: Int
    /// The first byte this entry may not reach: the next local header or the central directory.
    let boundary: UInt64
    /// The name as stored, for the byte comparison with the local header.
    let rawName: [UInt8]
    let centralExtraLength: Int
    let centralCommentLength: Int

    public var isDirectory: Bool { name.hasSuffix("/") }
    public var usesDataDescriptor: Bool { flags & ZIPFormat.flagDataDescriptor != 0 }
}
