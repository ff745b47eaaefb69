import Foundation

/// An archive already in memory.
public struct ZIPMemorySource: ZIPRandomAccessSource {
    private let bytes: [UInt8]

    public init(_ bytes: some DataProtocol) {
        self.bytes = [UInt8](bytes)
    }

    public var size: UInt64 { UInt64(bytes.count) }

    public func read(offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= UInt64(bytes.count), UInt64(count) <= UInt64(bytes.count) - offset else {
            throw ZIPError(.truncated, "read past the end of the in-memory archive")
        }
        let start = Int(offset)
        return Array(bytes[start..<(start + count)])
    }
}
