import Foundation
import MediaDRMZIP

/// A remote archive read with HTTP Range requests, for `ZIPReader`.
///
/// Opening makes one suffix-range request (`Range: bytes=-N`) whose `Content-Range` gives the size
/// and whose body is the archive's tail, where the ZIP end records (and for small archives the
/// whole central directory) live; the reader's first reads are then answered from memory. Later
/// misses fetch at least `minimumRequestBytes`, and reads that continue where the previous one
/// ended fetch more each time (doubling up to `sequentialReadAheadBytes`), so streaming an entry
/// costs few requests and a short one fetches little beyond its end.
///
/// Every 206 is checked: its `Content-Range` must be exactly the range asked for, with the
/// complete length seen at opening, a body of exactly that length, and the same strong entity tag
/// when one was given. A 200 answer to a range request is accepted only at opening, and only when
/// it is small (`maxWholeResourceBytes`): then it is the whole resource and no further request
/// is made. Redirects fail (the client never follows them). A signed URL that expires while the
/// resource is read is renewed through its `RenewableURL` (a 403 retried once with a fresh URL).
public final class HTTPRangeSource: ZIPRandomAccessSource, @unchecked Sendable {
    public struct Options: Sendable {
        /// Bytes of the tail fetched at opening; the default covers the ZIP end-record search.
        public var tailPrefetchBytes: Int
        public var minimumRequestBytes: Int
        public var sequentialReadAheadBytes: Int
        /// Bytes kept from earlier responses; the oldest go first.
        public var maxCachedBytes: Int
        /// Largest resource accepted whole when a server ignores Range.
        public var maxWholeResourceBytes: Int

        public init(tailPrefetchBytes: Int = 22 + 65_535 + 20, minimumRequestBytes: Int = 64 << 10,
                    sequentialReadAheadBytes: Int = 1 << 20, maxCachedBytes: Int = 8 << 20,
                    maxWholeResourceBytes: Int = 1 << 20) {
            self.tailPrefetchBytes = tailPrefetchBytes
            self.minimumRequestBytes = minimumRequestBytes
            self.sequentialReadAheadBytes = sequentialReadAheadBytes
            self.maxCachedBytes = maxCachedBytes
            self.maxWholeResourceBytes = maxWholeResourceBytes
        }
    }

    private struct Segment {
        let offset: UInt64
        let bytes: [UInt8]
        var end: UInt64 { offset + UInt64(bytes.count) }
    }

    public let size: UInt64
    /// The strong entity tag of the resource when the server sent one.
    public let entityTag: String?
    public let options: Options

    private let client: HTTPClient
    private let location: any RenewableURL
    private let credential: Credential?
    private let lock = NSLock()
    private var segments: [Segment] = []   // oldest first
    private var cachedBytes = 0
    private var lastReadEnd: UInt64?
    /// Grows (doubling up to `sequentialReadAheadBytes`) while reads stay sequential, so a short
    /// entry does not pull in a megabyte after it.
    private var readAhead = 0
    private var requests = 0
    private var received: UInt64 = 0

    /// Opens the resource (one request). Blocking; call it off the main actor.
    public convenience init(url: String, client: HTTPClient, credential: Credential? = nil,
                            options: Options = Options()) throws(TransportError) {
        try self.init(location: FixedURL(url), client: client, credential: credential, options: options)
    }

    /// Opens the resource at the location's current URL (one request). Blocking.
    public init(location: any RenewableURL, client: HTTPClient, credential: Credential? = nil,
                options: Options = Options()) throws(TransportError) {
        guard options.tailPrefetchBytes >= 0, options.minimumRequestBytes >= 1, options.sequentialReadAheadBytes >= 0,
              options.maxCachedBytes >= 0, options.maxWholeResourceBytes >= 0 else {
            throw TransportError(.invalidRequest, "a range source option is negative or zero")
        }
        self.client = client
        self.location = location
        self.credential = credential
        self.options = options

        let range = options.tailPrefetchBytes > 0 ? "bytes=-\(options.tailPrefetchBytes)" : "bytes=0-0"
        let asked = max(1, options.tailPrefetchBytes)
        let response = try Self.send(client, location) { url in TransportRequest(
            method: .get, url: url, headers: ["Range": range], credential: credential,
            maxResponseBytes: max(asked, options.maxWholeResourceBytes), extraAcceptedStatuses: [416]) }
        requests = 1
        received = UInt64(response.body.count)

        switch response.status {
        case 206:
            let contentRange = try Self.contentRange(response)
            guard let got = contentRange.range else { throw TransportError(.invalidRange, "a 206 answer has no byte range") }
            let total = contentRange.completeLength
            let expectedFirst: UInt64 = options.tailPrefetchBytes > 0 ? total - min(total, UInt64(asked)) : 0
            let expectedLast: UInt64 = options.tailPrefetchBytes > 0 ? total - 1 : 0
            guard got.lowerBound == expectedFirst, got.upperBound == expectedLast else {
                throw TransportError(.invalidRange, "the Content-Range does not answer the range that was asked")
            }
            guard UInt64(response.body.count) == expectedLast - expectedFirst + 1 else {
                throw TransportError(.invalidRange, "a 206 body's length differs from its Content-Range")
            }
            size = total
            entityTag = Self.strongTag(response)
            store(Segment(offset: expectedFirst, bytes: [UInt8](response.body)))
        case 200:
            // The server ignored Range: acceptable only for a small resource, taken whole.
            guard response.body.count <= options.maxWholeResourceBytes else {
                throw TransportError(.invalidRange, "the server ignored the Range request for a large resource")
            }
            if let length = response.headers["content-length"] {
                guard UInt64(length) == UInt64(response.body.count) else {
                    throw TransportError(.invalidRange, "a 200 body's length differs from its Content-Length")
                }
            }
            size = UInt64(response.body.count)
            entityTag = Self.strongTag(response)
            store(Segment(offset: 0, bytes: [UInt8](response.body)))
        default:
            // 416: only an empty resource cannot satisfy a suffix or first-byte range.
            let contentRange = try Self.contentRange(response)
            guard contentRange.range == nil, contentRange.completeLength == 0 else {
                throw TransportError(.invalidRange, "the server refused a range a non-empty resource satisfies")
            }
            size = 0
            entityTag = nil
        }
    }

    /// Requests made so far, the opening one included.
    public var requestCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }

    /// Response body bytes received so far.
    public var bytesReceived: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    public func read(offset: UInt64, count: Int) throws -> [UInt8] {
        try readBytes(offset: offset, count: count)
    }

    /// Fetches the whole range in one request when it fits the cache and is not cached yet (an
    /// entry's local header and data, before the reader verifies the header and streams the
    /// data). A failure is left for the read that follows to meet.
    public func willRead(offset: UInt64, count: Int) {
        guard count > 0, count <= options.maxCachedBytes, offset <= size, UInt64(count) <= size - offset else { return }
        lock.lock()
        defer { lock.unlock() }
        let end = offset + UInt64(count)
        if segments.contains(where: { $0.offset <= offset && end <= $0.end }) { return }
        guard let segment = try? fetch(first: offset, count: UInt64(count)) else { return }
        store(segment)
        lastReadEnd = nil
        readAhead = 0
    }

    /// `read(offset:count:)` with its error type spelled out.
    public func readBytes(offset: UInt64, count: Int) throws(TransportError) -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw TransportError(.invalidRange, "a read reaches past the end of the resource")
        }
        if count == 0 { return [] }
        lock.lock()
        defer { lock.unlock() }
        let end = offset + UInt64(count)
        let sequential = lastReadEnd == offset
        var output = [UInt8]()
        output.reserveCapacity(count)
        var position = offset
        while position < end {
            if let segment = segments.last(where: { $0.offset <= position && position < $0.end }) {
                let from = Int(position - segment.offset)
                let to = Int(min(end, segment.end) - segment.offset)
                output.append(contentsOf: segment.bytes[from..<to])
                position += UInt64(to - from)
                continue
            }
            // Fetch from here up to the next cached byte we need, at least the minimum.
            let needed = end - position
            var want = max(needed, UInt64(options.minimumRequestBytes))
            if sequential {
                readAhead = min(options.sequentialReadAheadBytes, max(options.minimumRequestBytes, readAhead > Int.max / 2 ? Int.max : readAhead * 2))
                want = max(want, UInt64(readAhead))
            } else {
                readAhead = 0
            }
            if let next = segments.filter({ $0.offset > position && $0.offset < end }).map(\.offset).min() {
                // The bytes from `next` on are cached: fetch only the gap.
                want = next - position
            }
            want = min(want, size - position)
            let segment = try fetch(first: position, count: want)
            store(segment)
            let take = Int(min(end, segment.end) - position)
            output.append(contentsOf: segment.bytes[0..<take])
            position += UInt64(take)
        }
        lastReadEnd = end
        return output
    }

    // MARK: Private

    private func fetch(first: UInt64, count: UInt64) throws(TransportError) -> Segment {
        guard count <= UInt64(Int.max / 2) else { throw TransportError(.invalidRange, "a range request is too large") }
        let last = first + count - 1
        requests += 1
        let credential = self.credential
        let response = try Self.send(client, location) { url in TransportRequest(
            method: .get, url: url, headers: ["Range": "bytes=\(first)-\(last)"], credential: credential,
            maxResponseBytes: Int(count)) }
        received += UInt64(response.body.count)
        guard response.status == 206 else {
            throw TransportError(.invalidRange, "the server did not answer a range request with 206", status: response.status)
        }
        let contentRange = try Self.contentRange(response)
        guard contentRange.completeLength == size else {
            throw TransportError(.resourceChanged, "the resource's size changed between requests")
        }
        if let tag = entityTag, let now = Self.strongTag(response), tag != now {
            throw TransportError(.resourceChanged, "the resource's entity tag changed between requests")
        }
        guard contentRange.range == first...last else {
            throw TransportError(.invalidRange, "the Content-Range does not answer the range that was asked")
        }
        guard UInt64(response.body.count) == count else {
            throw TransportError(.invalidRange, "a 206 body's length differs from its Content-Range")
        }
        return Segment(offset: first, bytes: [UInt8](response.body))
    }

    private func store(_ segment: Segment) {
        guard segment.bytes.count <= options.maxCachedBytes, !segment.bytes.isEmpty else { return }
        segments.append(segment)
        cachedBytes += segment.bytes.count
        while cachedBytes > options.maxCachedBytes, !segments.isEmpty {
            cachedBytes -= segments.removeFirst().bytes.count
        }
    }

    /// A body longer than the range asked for (or than a small whole resource) is a range
    /// failure, whichever way the server framed it.
    private static func send(_ client: HTTPClient, _ location: any RenewableURL,
                             _ make: (String) -> TransportRequest) throws(TransportError) -> TransportResponse {
        do {
            return try client.sendSynchronously(to: location, make)
        } catch {
            guard error.code == .responseTooLarge else { throw error }
            throw TransportError(.invalidRange, "the server sent more than the range asked for", status: error.status)
        }
    }

    private static func contentRange(_ response: TransportResponse) throws(TransportError) -> ContentRange {
        let values = response.headers.values(for: "content-range")
        guard values.count == 1, let value = values.first else {
            throw TransportError(.invalidRange, "a range answer lacks exactly one Content-Range header", status: response.status)
        }
        return try ContentRange(parsing: value)
    }

    private static func strongTag(_ response: TransportResponse) -> String? {
        guard let tag = response.headers["etag"], !tag.hasPrefix("W/") else { return nil }
        return tag
    }
}
