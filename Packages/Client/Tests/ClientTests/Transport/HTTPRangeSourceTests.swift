import Foundation
import Testing
import MediaDRMZIP
@testable import Client

/// A deterministic byte generator, so archives differ per entry without a random source.
struct TestBytes {
    var state: UInt64
    mutating func next(_ count: Int) -> Data {
        var out = Data(capacity: count)
        for _ in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            out.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return out
    }
}

@Suite struct HTTPRangeSourceTransportTests {
    static let entryCount = 300

    /// One origin and one set of files for the suite; tests that count requests use files of their own.
    struct Shared: Sendable {
        let root: URL
        let origin: LocalOrigin
        let archive: Data
        let contents: [String: Data]
        let big: Data
    }

    static let shared: Result<Shared, TestSupportError> = {
        do {
            let root = try makeTemporaryDirectory()
            var generator = TestBytes(state: 42)
            let sink = ZIPMemorySink()
            let writer = try ZIPWriter(sink: sink, layout: .exact)
            var contents: [String: Data] = [:]
            for index in 0..<entryCount {
                let name = "video/video-segment\(index).m4s"
                let data = generator.next(4096 + (index * 37) % 8192)
                try writer.addEntry(name: name, data: data)
                contents[name] = data
            }
            let text = Data(String(repeating: "manifest text compresses well. ", count: 400).utf8)
            try writer.addEntry(name: "manifest.json", data: text, method: .deflate)
            contents["manifest.json"] = text
            _ = try writer.finish()
            let archive = sink.data
            try archive.write(to: root.appendingPathComponent("package.zip"))
            let big = generator.next(300_000)
            try big.write(to: root.appendingPathComponent("big.bin"))
            try generator.next(1000).write(to: root.appendingPathComponent("small.bin"))
            try Data().write(to: root.appendingPathComponent("empty.bin"))
            let origin = try LocalOrigin(root: root)
            return .success(Shared(root: root, origin: origin, archive: archive, contents: contents, big: big))
        } catch {
            return .failure(TestSupportError("range origin: \(error)"))
        }
    }()

    let root: URL
    let origin: LocalOrigin
    let client: HTTPClient
    let archive: Data
    let contents: [String: Data]
    let big: Data

    init() throws {
        let shared = try Self.shared.get()
        root = shared.root
        origin = shared.origin
        archive = shared.archive
        contents = shared.contents
        big = shared.big
        client = try HTTPClient()
    }

    @Test func oneEntryOfALargeArchiveCostsFewRequestsAndFewBytes() throws {
        try archive.write(to: root.appendingPathComponent("counted.zip"))
        let source = try HTTPRangeSource(url: origin.url("/counted.zip"), client: client)
        #expect(source.size == UInt64(archive.count))
        let reader = try ZIPReader(source: source)
        #expect(reader.entries.count == Self.entryCount + 1)
        let name = "video/video-segment217.m4s"
        let entry = try #require(reader.entry(named: name))
        #expect(try reader.read(entry) == contents[name])
        #expect(try reader.read(named: "manifest.json") == contents["manifest.json"])
        // Opening (tail with the central directory) plus about one request per entry read.
        #expect(source.requestCount <= 4)
        #expect(source.requestCount < Self.entryCount / 50)
        #expect(source.bytesReceived < UInt64(archive.count) / 8)
        // The server saw exactly the requests the source counted.
        #expect(try origin.hits(using: client).counts["/counted.zip"] == source.requestCount)
    }

    @Test func exactLayoutCheckReadsOnlyLocalHeaders() throws {
        let source = try HTTPRangeSource(url: origin.url("/package.zip"), client: client,
                                         options: HTTPRangeSource.Options(minimumRequestBytes: 4096))
        let reader = try ZIPReader(source: source)
        let entry = try #require(reader.entry(named: "video/video-segment5.m4s"))
        let range = try reader.dataRange(for: entry)
        let direct = try source.read(offset: range.lowerBound, count: Int(range.upperBound - range.lowerBound))
        #expect(Data(direct) == contents["video/video-segment5.m4s"])
    }

    @Test func arbitraryReadsMatchTheFile() throws {
        let source = try HTTPRangeSource(url: origin.url("/big.bin"), client: client,
                                         options: HTTPRangeSource.Options(minimumRequestBytes: 8192, sequentialReadAheadBytes: 65_536))
        #expect(source.size == 300_000)
        var generator = TestBytes(state: 7)
        for _ in 0..<40 {
            let bytes = [UInt8](generator.next(8))
            let offset = Int(UInt64(bytes[0]) << 16 | UInt64(bytes[1]) << 8 | UInt64(bytes[2])) % 300_000
            let count = min(Int(bytes[3]) * 64 + Int(bytes[4]), 300_000 - offset)
            #expect(try source.read(offset: UInt64(offset), count: count) == [UInt8](big[offset..<(offset + count)]))
        }
        #expect(try source.read(offset: 300_000, count: 0) == [])
        #expect(try source.read(offset: 299_999, count: 1) == [big[299_999]])
        // A sequential scan reads ahead: far fewer requests than chunks.
        let before = source.requestCount
        var scanned = [UInt8]()
        var offset = 0
        while offset < 300_000 {
            let count = min(4096, 300_000 - offset)
            scanned += try source.read(offset: UInt64(offset), count: count)
            offset += count
        }
        #expect(scanned == [UInt8](big))
        #expect(source.requestCount - before < 300_000 / 4096 / 4)
    }

    @Test func aLargeEntryStreamsWithGrowingReadAhead() throws {
        var generator = TestBytes(state: 9)
        let large = generator.next(3_000_000)
        let sink = ZIPMemorySink()
        let writer = try ZIPWriter(sink: sink)
        try writer.addEntry(name: "before.bin", data: generator.next(100))
        try writer.addEntry(name: "large.bin", data: large)
        try writer.addEntry(name: "after.bin", data: generator.next(100))
        _ = try writer.finish()
        try sink.data.write(to: root.appendingPathComponent("large.zip"))
        let source = try HTTPRangeSource(url: origin.url("/large.zip"), client: client)
        let reader = try ZIPReader(source: source)
        var streamed = Data()
        try reader.readStream(try #require(reader.entry(named: "large.bin"))) { streamed.append($0) }
        #expect(streamed == large)
        // 64 KiB chunks would take 46 requests; the read-ahead doubles up to 1 MiB.
        #expect(source.requestCount <= 9)
        #expect(source.bytesReceived < UInt64(sink.data.count) + (1 << 20))
    }

    @Test func readsOutsideTheResourceAreRefused() throws {
        let source = try HTTPRangeSource(url: origin.url("/big.bin"), client: client)
        for (offset, count) in [(UInt64(300_001), 0), (299_990, 11), (0, -1), (UInt64.max, 1)] {
            #expect(transportError { try source.readBytes(offset: offset, count: count) }?.code == .invalidRange)
        }
    }

    @Test func aSmallResourceServedWholeIsAcceptedWithOneRequest() throws {
        let source = try HTTPRangeSource(url: origin.url("/__norange/small.bin"), client: client)
        #expect(source.size == 1000)
        let whole = try Data(contentsOf: root.appendingPathComponent("small.bin"))
        #expect(try source.read(offset: 10, count: 990) == [UInt8](whole[10...]))
        #expect(source.requestCount == 1)
    }

    @Test func aLargeResourceServedWholeIsRefused() throws {
        let error = transportError {
            try HTTPRangeSource(url: origin.url("/__norange/big.bin"), client: client,
                                options: HTTPRangeSource.Options(maxWholeResourceBytes: 100_000))
        }
        #expect(error?.code == .invalidRange)
    }

    @Test func aContentRangeThatDoesNotAnswerTheRequestIsRefused() throws {
        let error = transportError { try HTTPRangeSource(url: origin.url("/__badrange/big.bin"), client: client) }
        #expect(error?.code == .invalidRange)
    }

    @Test func aChangedResourceIsDetected() throws {
        let path = root.appendingPathComponent("changing.bin")
        try big.write(to: path)
        let options = HTTPRangeSource.Options(tailPrefetchBytes: 1000, minimumRequestBytes: 1000, sequentialReadAheadBytes: 0)
        let sameSize = try HTTPRangeSource(url: origin.url("/changing.bin"), client: client, options: options)
        let otherSize = try HTTPRangeSource(url: origin.url("/changing.bin"), client: client, options: options)
        var replacement = big
        replacement[0] ^= 0xff
        try replacement.write(to: path)
        // Same size: only the modification time tells the origin's ETag apart. Set it to a moment
        // the original cannot have, rather than relying on the clock moving between two writes.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
                                              ofItemAtPath: path.path)
        #expect(transportError { try sameSize.read(offset: 0, count: 10) }?.code == .resourceChanged)
        try big.prefix(200_000).write(to: path)
        #expect(transportError { try otherSize.read(offset: 0, count: 10) }?.code == .resourceChanged)
    }

    @Test func redirectsAndErrorsFailTheSource() throws {
        try archive.write(to: root.appendingPathComponent("redirect-target.zip"))
        let redirected = transportError { try HTTPRangeSource(url: origin.url("/__redirect/302/redirect-target.zip"), client: client) }
        #expect(redirected?.code == .redirectRefused)
        #expect(try origin.hits(using: client).counts["/redirect-target.zip"] == nil)
        #expect(transportError { try HTTPRangeSource(url: origin.url("/missing.zip"), client: client) }?.status == 404)
        #expect(transportError { try HTTPRangeSource(url: "http://192.0.2.1/package.zip", client: client) }?.code == .insecureURL)
    }

    @Test func anEmptyResourceHasSizeZero() throws {
        let source = try HTTPRangeSource(url: origin.url("/empty.bin"), client: client)
        #expect(source.size == 0)
        #expect(try source.read(offset: 0, count: 0) == [])
    }

    @Test func zipReaderWrapsTransportFailures() throws {
        let path = root.appendingPathComponent("vanishing.zip")
        try archive.write(to: path)
        let source = try HTTPRangeSource(url: origin.url("/vanishing.zip"), client: client)
        let reader = try ZIPReader(source: source)
        try FileManager.default.removeItem(at: path)
        let entry = try #require(reader.entry(named: "video/video-segment3.m4s"))
        var thrown: ZIPError?
        do { _ = try reader.read(entry) } catch { thrown = error }
        #expect(thrown?.code == .io)
    }

    @Test func overTLSWithAPrivateCA() throws {
        let fixture = try TLSFixture.shared.get()
        let tlsOrigin = try LocalOrigin(root: root, certificate: fixture.serverCertificate, key: fixture.serverKey)
        let tlsClient = try HTTPClient(configuration: HTTPClientConfiguration(trustedCertificatesPEM: fixture.caPEM,
                                                                              publicKeyPin: fixture.serverPin))
        let source = try HTTPRangeSource(url: tlsOrigin.url("/package.zip"), client: tlsClient)
        let reader = try ZIPReader(source: source)
        #expect(try reader.read(named: "video/video-segment299.m4s") == contents["video/video-segment299.m4s"])
        #expect(source.requestCount <= 3)
    }

    @Test func contentRangeGrammar() throws {
        #expect(try ContentRange(parsing: "bytes 0-0/1") == ContentRange(range: 0...0, completeLength: 1))
        #expect(try ContentRange(parsing: "bytes 10-19/300000") == ContentRange(range: 10...19, completeLength: 300_000))
        #expect(try ContentRange(parsing: "bytes */0") == ContentRange(range: nil, completeLength: 0))
        for bad in ["bytes 0-0/*", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-2/3", "bytes +1-2/3", "bytes 1-2/3 ",
                    "items 0-1/2", "bytes=0-1/2", "bytes 0-1", "bytes 0 -1/2", "bytes 0-1/2/3", "bytes 00000000000000000001-2/3",
                    "bytes 0-18446744073709551616/1", ""] {
            #expect(transportError { try ContentRange(parsing: bad) }?.code == .invalidRange, "\(bad)")
        }
    }
}
