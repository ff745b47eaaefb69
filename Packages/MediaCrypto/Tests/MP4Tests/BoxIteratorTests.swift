import Foundation
import Testing
@testable import MediaDRMMP4

@Suite struct BoxIteratorTests {
    func sample() throws -> [UInt8] {
        let ftyp = try FileTypeBox(majorBrand: "isom", minorVersion: 0, compatibleBrands: ["isom"]).serializedBytes()
        let moov = try MovieBoxTests.movie().serializedBytes()
        return ftyp + moov + (try MediaDataBox.header(payloadSize: 10)) + Array(repeating: 0xEE, count: 10)
    }

    @Test func walksHeadersAndReadsBoxes() throws {
        let bytes = try sample()
        var iterator = BoxIterator(source: MP4MemorySource(bytes))
        let headers = try iterator.all()
        #expect(headers.map(\.type) == ["ftyp", "moov", "mdat"])
        #expect(headers[2].payloadSize == 10)
        #expect(headers[2].endOffset == UInt64(bytes.count))
        let moov = try iterator.readBox(headers[1], as: MovieBox.self)
        #expect(moov == MovieBoxTests.movie())
        let mdat = try #require(try iterator.readBox(headers[2]) as? MediaDataBox)
        #expect(mdat.payloadOffset == headers[2].payloadOffset)
        #expect(throws: MP4Error.self) { try iterator.readBox(headers[1], as: FileTypeBox.self) }
        #expect(throws: MP4Error.self) { try iterator.readBox(headers[1], maximumSize: 100) }
    }

    /// A source that refuses to read the mdat payload proves only headers are read.
    struct GuardedSource: MP4ByteSource {
        let inner: MP4MemorySource
        let forbidden: Range<UInt64>
        var size: UInt64 { inner.size }
        func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
            if offset < forbidden.upperBound, offset + UInt64(count) > forbidden.lowerBound {
                throw MP4Error(.io, "payload read")
            }
            return try inner.read(offset: offset, count: count)
        }
    }

    @Test func neverReadsMdatPayload() throws {
        let bytes = try sample()
        let payloadStart = UInt64(bytes.count - 10)
        let source = GuardedSource(inner: MP4MemorySource(bytes + bytes), forbidden: payloadStart ..< payloadStart + 10)
        var iterator = BoxIterator(source: source)
        let headers = try iterator.all()
        #expect(headers.count == 6)
        #expect(try iterator.readBox(headers[2]) is MediaDataBox)
    }

    @Test func largeSizeAndSizeZeroAtTopLevel() throws {
        var bytes = be32(1) + Array("mdat".utf8) + be32(0) + be32(20) + [1, 2, 3, 4]
        bytes += be32(0) + Array("mdat".utf8) + Array(repeating: 9, count: 7)
        var iterator = BoxIterator(source: MP4MemorySource(bytes))
        let headers = try iterator.all()
        #expect(headers == [BoxHeader(type: "mdat", offset: 0, size: 20, headerSize: 16),
                            BoxHeader(type: "mdat", offset: 20, size: 15, headerSize: 8)])
        let boxes = try BoxParser.parse(bytes)
        #expect((boxes[1] as? MediaDataBox)?.payloadSize == 7)
        #expect((boxes[0] as? MediaDataBox)?.payloadOffset == 16)
    }

    @Test func truncatedOrBrokenFilesFail() throws {
        let bytes = try sample()
        for length in [1, 7, 9, bytes.count - 1] {
            var iterator = BoxIterator(source: MP4MemorySource(Array(bytes[..<length])))
            #expect(throws: MP4Error.self) { try iterator.all() }
        }
        var tiny = BoxIterator(source: MP4MemorySource(be32(3) + Array("free".utf8)))
        #expect(throws: MP4Error(.invalidSize, "")) { try tiny.all() }
        var wide = BoxIterator(source: MP4MemorySource(be32(1) + Array("free".utf8) + be32(0xFFFF_FFFF) + be32(0)))
        #expect(throws: MP4Error(.truncated, "")) { try wide.all() }
    }

    @Test func fileSource() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mp4-iter-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let bytes = try sample()
        try Data(bytes).write(to: url)
        let source = try MP4FileSource(path: url.path)
        #expect(source.size == UInt64(bytes.count))
        #expect(try source.read(offset: 4, count: 4) == Array("ftyp".utf8))
        #expect(throws: MP4Error.self) { try source.read(offset: UInt64(bytes.count - 2), count: 4) }
        var iterator = BoxIterator(source: source)
        #expect(try iterator.all().count == 3)
        #expect(throws: MP4Error(.io, "")) { try MP4FileSource(path: "/nonexistent/file.mp4") }
    }
}
