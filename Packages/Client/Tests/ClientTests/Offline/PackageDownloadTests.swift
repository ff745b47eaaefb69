import Foundation
import Testing
@testable import Client

/// `PackageDownload` against the test origin (`Tools/python/range_server.py`): a connection
/// dropped mid-body is resumed with `Range` + `If-Range` and the file ends byte-identical to the
/// origin's; a resource that changed between runs starts over; a rerun after a failure resumes.
@Suite struct PackageDownloadTests {
    static let size = 700_000

    struct Fixture {
        let root: URL
        let origin: LocalOrigin
        let client: HTTPClient
        let library: URL
    }

    static func fixture(_ bytes: Data, name: String) throws -> Fixture {
        let root = try makeTemporaryDirectory()
        try bytes.write(to: root.appendingPathComponent(name))
        let library = try makeTemporaryDirectory()
        return Fixture(root: root, origin: try LocalOrigin(root: root), client: try HTTPClient(), library: library)
    }

    static func bytes(_ seed: UInt64) -> Data {
        var generator = TestBytes(state: seed)
        return generator.next(size)
    }

    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [PackageDownload.Event] = []
        func add(_ event: PackageDownload.Event) { lock.withLock { list.append(event) } }
        var all: [PackageDownload.Event] { lock.withLock { list } }
        var interruptions: [UInt64] {
            all.compactMap { if case .interrupted(let bytes) = $0 { return bytes } else { return nil } }
        }
        var restarts: Int { all.filter { if case .restarted = $0 { return true } else { return false } }.count }
    }

    @Test func droppedConnectionResumesWithIfRangeAndMatches() throws {
        let original = Self.bytes(7)
        let f = try Self.fixture(original, name: "talk.tdf")
        defer { f.origin.stop() }
        let events = Events()
        let download = PackageDownload(url: f.origin.url("/__dropafter/250000/talk.tdf"),
                                       directory: f.library.appendingPathComponent("download").path,
                                       client: f.client, events: events.add)
        let (path, bytes) = try download.run()
        #expect(bytes == UInt64(Self.size))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(events.interruptions.count == 1)
        let resumedAt = try #require(events.interruptions.first)
        #expect(resumedAt > 0 && resumedAt < UInt64(Self.size))

        let log = try f.origin.rangeLog(using: f.client)
        #expect(log.count == 2)
        #expect(log.first?.range == "bytes=0-" && log.first?.ifRange == nil)
        #expect(log.last?.range == "bytes=\(resumedAt)-")
        let tag = try #require(log.last?.ifRange)
        #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
        // The state record names the same strong tag.
        #expect(try download.readState() == PackageDownload.State(entityTag: tag, length: UInt64(Self.size)))
    }

    @Test func rerunAfterAFailureResumesAndAChangedResourceStartsOver() throws {
        let first = Self.bytes(11)
        let f = try Self.fixture(first, name: "film.tdf")
        defer { f.origin.stop() }
        let directory = f.library.appendingPathComponent("download").path
        // No resumption in this run: the dropped connection fails this run, the bytes so far stay.
        let failing = PackageDownload(url: f.origin.url("/__dropafter/300000/film.tdf"), directory: directory,
                                      client: f.client, maxInterruptions: 0)
        #expect(throws: OfflineError(.download, "")) { try failing.run() }
        let kept = try #require(LibraryFiles.size(directory + "/partial"))
        #expect(kept > 0 && kept < UInt64(Self.size))

        // The same resource again: resumed from the kept bytes.
        let events = Events()
        let rerun = PackageDownload(url: f.origin.url("/film.tdf"), directory: directory, client: f.client, events: events.add)
        let (path, _) = try rerun.run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == first)
        #expect(events.restarts == 0)
        #expect(try f.origin.rangeLog(using: f.client).last?.range == "bytes=\(kept)-")

        // A partial download of a resource that then changes on the origin: If-Range misses,
        // the origin answers 200 and the file starts over, ending as the new resource.
        let other = f.library.appendingPathComponent("other").path
        let interrupted = PackageDownload(url: f.origin.url("/__dropafter/200000/film.tdf"), directory: other,
                                          client: f.client, maxInterruptions: 0)
        #expect(throws: OfflineError(.download, "")) { try interrupted.run() }
        let second = Self.bytes(13)
        try second.write(to: f.root.appendingPathComponent("film.tdf"))
        let changed = Events()
        let restarted = PackageDownload(url: f.origin.url("/film.tdf"), directory: other, client: f.client, events: changed.add)
        let (otherPath, _) = try restarted.run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: otherPath)) == second)
        #expect(changed.restarts == 1)
    }
}
