import Foundation

/// Collects the archive in memory (for small archives such as a Standard TDF segment, and tests).
public final class ZIPMemorySink: ZIPSink {
    public private(set) var data = Data()

    public init() {}

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        data.append(contentsOf: bytes)
    }

    public var supportsPatching: Bool { true }

    public func patch(at offset: UInt64, with bytes: UnsafeRawBufferPointer) throws {
        guard offset <= UInt64(data.count), UInt64(bytes.count) <= UInt64(data.count) - offset else {
            throw ZIPError(.invalidArgument, "patch past the end of the written archive")
        }
        let start = data.startIndex + Int(offset)
        data.replaceSubrange(start..<(start + bytes.count), with: bytes)
    }
}
