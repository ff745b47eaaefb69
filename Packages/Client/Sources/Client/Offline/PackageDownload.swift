import Foundation
import MediaDRMJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads one resource to a file with HTTP Range requests, resuming after an interruption.
///
/// The bytes so far (`partial`) and the resource's strong entity tag and size (`state`, written
/// before the first body byte) live in a directory of their own. A resumed request asks for
/// `Range: bytes=N-` with `If-Range: <entity tag>` (RFC 9110 §13.1.5): a 206 whose
/// `Content-Range` starts at N continues the file; a 200 means the resource changed (or the
/// origin ignores ranges), and the file starts over from its first byte. Without a strong tag
/// nothing can be resumed safely, so every attempt starts over. A dropped connection is resumed
/// from where it stopped up to `maxInterruptions` times per run, and gives up after `retries`
/// attempts in a row that brought no byte; a later run resumes from the bytes kept.
public final class PackageDownload: @unchecked Sendable {
    /// What a download reports, in order.
    public enum Event: Sendable {
        /// A request is about to be made from `offset` (0 for a fresh start).
        case requesting(offset: UInt64, resuming: Bool)
        /// Bytes on disk so far and the resource's size when known.
        case progress(bytes: UInt64, total: UInt64?)
        /// The connection dropped at `bytes`; the download continues from there.
        case interrupted(bytes: UInt64)
        /// The origin answered 200 to a resumed request: the resource changed, so it starts over.
        case restarted
    }

    public let url: String
    public let directory: String
    public let retries: Int
    public let maxInterruptions: Int
    /// The largest resource accepted.
    public let maxBytes: UInt64
    private let client: HTTPClient
    private let events: (@Sendable (Event) -> Void)?

    var partialPath: String { directory + "/partial" }
    var statePath: String { directory + "/state.json" }

    public init(url: String, directory: String, client: HTTPClient, maxBytes: UInt64 = 64 << 30, retries: Int = 3,
                maxInterruptions: Int = 20, events: (@Sendable (Event) -> Void)? = nil) {
        self.maxInterruptions = maxInterruptions
        self.url = url
        self.directory = directory
        self.client = client
        self.maxBytes = maxBytes
        self.retries = retries
        self.events = events
    }

    /// Runs to the end (blocking); returns the complete file's path and size.
    public func run() throws(OfflineError) -> (path: String, bytes: UInt64) {
        try LibraryFiles.ensurePrivateDirectory(directory)
        var failuresInARow = 0
        var interruptions = 0
        while true {
            var state = try readState()
            let have = LibraryFiles.size(partialPath) ?? 0
            if state == nil || have > (state?.length ?? .max) {
                // Bytes without a record of what they are a part of cannot be resumed.
                LibraryFiles.remove(partialPath)
                state = nil
            }
            let offset = state == nil ? 0 : have
            if let state, offset == state.length { return (partialPath, offset) }
            let resuming = offset > 0
            events?(.requesting(offset: offset, resuming: resuming))
            var fields = [HTTPHeaderField(name: "Range", value: "bytes=\(offset)-")]
            if resuming, let tag = state?.entityTag { fields.append(HTTPHeaderField(name: "If-Range", value: tag)) }
            let headers = TransportHeaders(fields)
            let sink = FileAppendSink(download: self, offset: offset, known: state)
            var request = TransportRequest(url: url, headers: headers, timeout: .seconds(7 * 86_400),
                                           maxResponseBytes: Int(clamping: maxBytes))
            request.bodySink = sink
            let before = offset
            do {
                _ = try client.sendSynchronously(request)
                sink.close()
                if let failure = sink.failure { throw failure }
            } catch let error as OfflineError {
                sink.close()
                throw error
            } catch {
                sink.close()
                if let failure = sink.failure { throw failure }
                guard let transport = error as? TransportError else { throw OfflineError(.download, "the download failed") }
                if transport.code == .httpStatus {
                    if transport.status == 416 {
                        // The range starts past the end: what is on disk is not a prefix of this resource.
                        LibraryFiles.remove(partialPath)
                        LibraryFiles.remove(statePath)
                        events?(.restarted)
                        continue
                    }
                    throw OfflineError(.download, "the origin answered HTTP \(transport.status ?? 0) for the package")
                }
                guard [.protocolError, .timedOut, .connectionFailed].contains(transport.code) else {
                    throw OfflineError(.download, "the download failed: \(transport.reason)")
                }
                let now = LibraryFiles.size(partialPath) ?? 0
                failuresInARow = now > before ? 0 : failuresInARow + 1
                interruptions += 1
                guard failuresInARow <= retries, interruptions <= maxInterruptions else {
                    throw OfflineError(.download, "the download was interrupted at \(now) bytes: run the same command again to resume")
                }
                events?(.interrupted(bytes: now))
                continue
            }
            if sink.restarted { events?(.restarted) }
            let size = LibraryFiles.size(partialPath) ?? 0
            guard let length = sink.state?.length, size == length else {
                // An answer that ended before the package does (a capped range): continue from
                // what arrived, giving up only when answers stop bringing bytes.
                failuresInARow = size > before ? 0 : failuresInARow + 1
                guard failuresInARow <= retries else {
                    throw OfflineError(.download, "the origin's answers end before the package does: run the command again later")
                }
                continue
            }
            return (partialPath, length)
        }
    }

    /// Forgets the download (after the package moved into place, or on delete).
    public func discard() {
        LibraryFiles.remove(directory)
    }

    // MARK: State

    struct State: Equatable {
        var entityTag: String?
        var length: UInt64
    }

    func readState() throws(OfflineError) -> State? {
        guard let data = try LibraryFiles.read(statePath, maxBytes: 4096) else { return nil }
        guard case .object(let object)? = try? JSONParser.parse(data),
              let length = (try? object.requireNumber("length"))?.uint64 else {
            LibraryFiles.remove(statePath)
            return nil
        }
        return State(entityTag: try? object.optionalString("entityTag"), length: length)
    }

    func writeState(_ state: State) throws(OfflineError) {
        var members: [(String, JSONValue)] = [("length", .number(JSONNumber(state.length)))]
        if let tag = state.entityTag { members.append(("entityTag", .string(tag))) }
        try LibraryFiles.write(JSONWriter.write(.object(JSONObject(members)), options: [.sortedKeys]), to: statePath)
    }

    func report(_ event: Event) { events?(event) }
}

/// Writes one answer's body at the right offset of the partial file, after checking that the
/// answer is what was asked for.
final class FileAppendSink: ResponseBodySink, @unchecked Sendable {
    private let download: PackageDownload
    private let offset: UInt64
    private let known: PackageDownload.State?
    private var fd: Int32 = -1
    private var written: UInt64 = 0
    private var lastReport: UInt64 = 0
    private(set) var state: PackageDownload.State?
    private(set) var failure: OfflineError?
    private(set) var restarted = false

    init(download: PackageDownload, offset: UInt64, known: PackageDownload.State?) {
        self.download = download
        self.offset = offset
        self.known = known
    }

    func begin(status: Int, headers: TransportHeaders) -> Bool {
        let tag = headers["etag"].flatMap { $0.hasPrefix("W/") ? nil : $0 }
        var start: UInt64
        let length: UInt64
        switch status {
        case 206:
            // An origin may answer less than asked (a capped range): the next request continues.
            guard headers.values(for: "content-range").count == 1, let value = headers["content-range"],
                  let range = try? ContentRange(parsing: value), let first = range.range?.lowerBound else {
                return refuse("the origin answered a range request without a usable Content-Range")
            }
            guard first == offset else { return refuse("the origin answered another range than the one asked for") }
            if let known, offset > 0, known.length != range.completeLength || known.entityTag != tag {
                return refuse("the origin resumed a package whose size or entity tag changed: delete the title and download it again")
            }
            start = first
            length = range.completeLength
        case 200:
            guard let text = headers["content-length"], let value = UInt64(text) else {
                return refuse("the origin did not say the package's size (no Content-Length)")
            }
            restarted = offset > 0
            start = 0
            length = value
        default:
            return refuse("the origin answered HTTP \(status) instead of the package")
        }
        guard length <= download.maxBytes else { return refuse("the package is larger than the download limit") }
        let next = PackageDownload.State(entityTag: tag, length: length)
        do {
            // The record first: bytes on disk are always described by it.
            if start == 0 { LibraryFiles.remove(download.partialPath) }
            try download.writeState(next)
        } catch {
            failure = error
            return false
        }
        state = next
        fd = open(download.partialPath, O_WRONLY | O_CREAT | O_CLOEXEC, LibraryFiles.fileMode)
        guard fd >= 0, ftruncate(fd, off_t(start)) == 0, lseek(fd, off_t(start), SEEK_SET) == off_t(start) else {
            return refuse("the partial download could not be opened for writing: check the library's free space")
        }
        written = start
        download.report(.progress(bytes: start, total: length))
        return true
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard fd >= 0, var pointer = bytes.baseAddress else { return bytes.isEmpty }
        var left = bytes.count
        while left > 0 {
            let count = write(fd, pointer, left)
            if count < 0 {
                if errno == EINTR { continue }
                return refuse("the download could not be written: check the library's free space")
            }
            left -= count
            pointer += count
        }
        written += UInt64(bytes.count)
        if written - lastReport >= 256 << 10 || written == state?.length {
            lastReport = written
            download.report(.progress(bytes: written, total: state?.length))
        }
        return true
    }

    func close() {
        if fd >= 0 {
            _ = fsync(fd)
            closeDescriptor(fd)
            fd = -1
        }
    }

    private func refuse(_ reason: String) -> Bool {
        if failure == nil { failure = OfflineError(.download, reason) }
        return false
    }
}

private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
