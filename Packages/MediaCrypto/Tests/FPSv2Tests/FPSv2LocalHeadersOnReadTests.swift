// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import Testing
import MediaDRMZIP
@testable import MediaDRMFPSv2

/// Counts the reads a source answers (each one a Range request for an HTTP source without cache).
final class CountingSource: ZIPRandomAccessSource, @unchecked Sendable {
    let base: ZIPMemorySource
    private let lock = NSLock()
    private var reads: [(offset: UInt64, count: Int)] = []

    init(_ data: Data) { base = ZIPMemorySource(data) }

    var size: UInt64 { base.size }
    var readCount: Int { lock.withLock { reads.count } }
    func readRanges() -> [Range<UInt64>] { lock.withLock { reads.map { $0.offset..<($0.offset + UInt64($0.count)) } } }

    func read(offset: UInt64, count: Int) throws -> [UInt8] {
        lock.withLock { reads.append((offset, count)) }
        return try base.read(offset: offset, count: count)
    }
}

/// `FPSv2Admission.Options.localHeaders = .onRead`: the layout from the central directory, the
/// metadata entries' local headers at admission, each segment's when it is read.
struct FPSv2LocalHeadersOnReadTests {
    static let onRead = FPSv2Admission.Options(localHeaders: .onRead)

    /// The archive with one byte of `name`'s local header flipped (`at` from the header's start).
    static func flippingLocalHeader(of name: String, at field: Int, in data: Data) throws -> Data {
        let entry = try #require(try ZIPReader(data: data).entry(named: name))
        return flipping(data, at: Int(entry.localHeaderOffset) + field)
    }

    @Test func validPackageIsAdmittedWithTheHeaderChecksVerifiedOnRead() throws {
        let package = FPSv2Package(archiveData: try PackageFixture.valid().zip())
        let report = FPSv2Admission.check(package, options: Self.onRead)
        #expect(report.results.map(\.check) == AdmissionCheck.allCases)
        #expect(report.isAdmitted, "\(report)")
        for result in report.results {
            let deferred = result.check == .headersAgree || result.check == .exactLayout
            #expect(result.status == (deferred ? .verifiedOnRead : .passed), "\(result)")
        }
        #expect(report.result(for: .headersAgree)?.description.hasPrefix("[verified on read]") == true)
        let admitted = try FPSv2Admission.admit(package, options: Self.onRead)
        for kind in ["video", "audio"] {
            for n in 0..<3 { #expect(try admitted.read(.segment(component: kind, number: n)) == syntheticSegment(number: n)) }
        }
        // Eager stays the default and reports plain passes.
        #expect(FPSv2Admission.Options.default.localHeaders == .eager)
        #expect(FPSv2Admission.check(package).results.allSatisfy { $0.status == .passed })
    }

    /// Every mutation of the suite is refused by the same check in onRead mode too: none of them
    /// touches a segment's local header, and the metadata headers are still read at admission.
    @Test(arguments: Mutation.all)
    func eachMutationIsRefusedTheSameOnRead(_ mutation: Mutation) throws {
        var (package, options) = try mutation.apply()
        options.localHeaders = .onRead
        let report = FPSv2Admission.check(package, options: options)
        #expect(report.results.map(\.check) == AdmissionCheck.allCases)
        let failure = try #require(report.firstFailure, "\(report)")
        #expect(failure.check == mutation.expected, "\(failure)")
        let error = try #require(throws: FPSv2Error.self) { try FPSv2Admission.admit(package, options: options) }
        #expect(error.check == mutation.expected)
    }

    @Test(arguments: [(14, "CRC-32"), (0, "signature"), (30, "name")])
    func segmentHeaderThatDisagreesFailsItsReadWithTheHeaderCheck(_ field: Int, _ what: String) throws {
        let data = try Self.flippingLocalHeader(of: "audio-segment1.m4s", at: field, in: try PackageFixture.valid().zip())
        let package = FPSv2Package(archiveData: data)
        // Eager admission refuses it at §4.2.
        let eager = try #require(throws: FPSv2Error.self) { try FPSv2Admission.admit(package) }
        #expect(eager.check == .headersAgree, "\(what)")
        // On read: admitted structurally, the segment's read is refused with the §4.2 identifier.
        let admitted = try FPSv2Admission.admit(package, options: Self.onRead)
        #expect(try admitted.read(.segment(component: "audio", number: 0)) == syntheticSegment(number: 0))
        #expect(try admitted.read(.segment(component: "audio", number: 2)) == syntheticSegment(number: 2))
        let error = try #require(throws: FPSv2Error.self) { try admitted.read(.segment(component: "audio", number: 1)) }
        #expect(error.code == .refused, "\(what)")
        #expect(error.check == .headersAgree, "\(what): \(error)")
    }

    @Test func metadataHeaderThatDisagreesIsRefusedAtAdmissionOnRead() throws {
        for name in ["video.m3u8", "audio-init.mp4"] {
            let data = try Self.flippingLocalHeader(of: name, at: 14, in: try PackageFixture.valid().zip())
            let error = try #require(throws: FPSv2Error.self) {
                try FPSv2Admission.admit(FPSv2Package(archiveData: data), options: Self.onRead)
            }
            #expect(error.check == .headersAgree, "\(name)")
        }
    }

    @Test func segmentDataGapIsRefusedFromTheCentralDirectory() throws {
        // A central directory whose segment offset is off by one: the layout arithmetic fails
        // without any local header being read.
        var data = [UInt8](try PackageFixture.valid().zip())
        let reader = try ZIPReader(data: Data(data))
        let directory = Int(reader.centralDirectoryOffset)
        // Walk to video-segment1.m4s's central record and bump its offset field (at +42).
        var position = directory
        for entry in reader.entries {
            let nameLength = Int(data[position + 28]) | Int(data[position + 29]) << 8
            if entry.name == "video-segment1.m4s" { data[position + 42] &+= 1; break }
            position += 46 + nameLength
        }
        let report = FPSv2Admission.check(FPSv2Package(archiveData: Data(data)), options: Self.onRead)
        #expect(report.firstFailure?.check == .exactLayout || report.firstFailure?.check == .endRecord, "\(report)")
        #expect(!report.isAdmitted)
    }

    @Test func admissionReadsDoNotGrowWithTheSegmentCount() throws {
        func reads(segments: Int, _ localHeaders: FPSv2Admission.Options.LocalHeaders) throws -> (count: Int, segmentBytesRead: Bool) {
            var fixture = try PackageFixture.valid()
            for kind in ["video", "audio"] {
                for n in 3..<segments { fixture["\(kind)-segment\(n).m4s"] = try syntheticSegment(number: n) }
            }
            // Keep the playlists naming every segment.
            for kind in ["video", "audio"] {
                var playlist = Vectors.mediaPlaylist(kind)
                let last = "\(kind)-segment2.m4s\n"
                var more = ""
                for n in 3..<segments { more += "#EXTINF:6.00000,\n\(kind)-segment\(n).m4s\n" }
                playlist = playlist.replacingOccurrences(of: last, with: last + more)
                fixture["\(kind).m3u8"] = Data(playlist.utf8)
            }
            let data = try fixture.zip()
            let source = CountingSource(data)
            let admitted = try FPSv2Admission.admit(FPSv2Package(archive: source), options: FPSv2Admission.Options(localHeaders: localHeaders))
            #expect(admitted.segmentCount == segments)
            let reader = try ZIPReader(data: data)
            let segmentRanges = reader.entries.filter { !(FPSv2EntryName($0.name)?.isMetadata ?? true) }
                .map { $0.localHeaderOffset..<($0.localHeaderOffset + 30 + UInt64($0.name.utf8.count) + $0.compressedSize) }
            // The end-record search reads the archive's tail (all of a small archive): not counted.
            let touched = source.readRanges().filter { $0.upperBound != source.size }
                .contains { read in segmentRanges.contains { $0.overlaps(read) } }
            return (source.readCount, touched)
        }
        let few = try reads(segments: 3, .onRead)
        let many = try reads(segments: 40, .onRead)
        #expect(few.count == many.count, "onRead: \(few.count) reads for 3 segments, \(many.count) for 40")
        #expect(!few.segmentBytesRead && !many.segmentBytesRead)
        // Eager reads every local header.
        let eager = try reads(segments: 40, .eager)
        #expect(eager.count > many.count + 70)
    }
}
