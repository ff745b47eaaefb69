// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCENC
import MediaDRMFPSv2
import Foundation
import Testing
import MediaDRMZIP
@testable import Packager

/// The writer refusals of fps-v2 §4 #6 and §8.1 #11, and the ZIP64 escape hatch.
@Suite struct LimitTests {
    @Test func moreThan4093SegmentsAreRefusedFromAFile() throws {
        // 4,100 IDR frames: at a 10 ms target every frame would start a segment.
        let source = try TestMedia.make("all-idr.mp4", ["-f", "lavfi", "-i", "testsrc2=size=32x32:rate=100", "-t", "41",
                                                        "-c:v", "libx264", "-g", "1"])
        let dir = TestMedia.temporaryDirectory("segments")
        let result = try PackagerBinary.package(source, output: dir + "/out.tdf", extra: ["--segment-duration", "0.01"])
        #expect(result.status == 1 && result.stderr.contains("more than 4093 segments"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // At 0.25 s the same video fits (164 segments per component), and a reader admits it.
        let fits = try FPSv2Packager.package(input: source, output: dir + "/ok.tdf",
                                             options: try { var o = try KASFixture.options(); o.segmentDuration = 0.25; return o }())
        #expect(fits.segmentDurations.count == 164)
        #expect(fits.admission?.isAdmitted == true)
    }

    @Test func archiveSizeDecisionAt4GiB() throws {
        // The exact-layout size formula, against a package actually written.
        let dir = TestMedia.temporaryDirectory("size")
        let summary = try FPSv2Packager.package(input: try TestMedia.standard(), output: dir + "/out.tdf", options: try KASFixture.options())
        let reader = try ZIPReader(path: dir + "/out.tdf")
        let entries = reader.entries.map { (name: $0.name, size: Int($0.uncompressedSize)) }
        #expect(FPSv2Packager.archiveBytes(entries: entries) == summary.bytes)

        // 2 components of 4,093 segments of 525,000 bytes: just over 4,294,967,295 bytes.
        let names = FPSv2EntryName.packageEntries(components: ["video", "audio"], segmentCount: 4_093)
        func sizes(_ segment: Int) -> [(name: String, size: Int)] {
            names.map { (name: $0.name, size: $0.isMetadata ? 2_000 : segment) }
        }
        let big = FPSv2Packager.archiveBytes(entries: sizes(525_000))
        #expect(big > FPSv2Packager.maximumArchiveBytes)
        #expect(throws: PackagerError(.limitExceeded, "")) { try FPSv2Packager.checkArchiveSize(big, allowZIP64: false) }
        #expect(throws: Never.self) { try FPSv2Packager.checkArchiveSize(big, allowZIP64: true) }
        let small = FPSv2Packager.archiveBytes(entries: sizes(524_000))
        #expect(small <= FPSv2Packager.maximumArchiveBytes)
        #expect(throws: Never.self) { try FPSv2Packager.checkArchiveSize(small, allowZIP64: false) }
        #expect(throws: Never.self) { try FPSv2Packager.checkArchiveSize(FPSv2Packager.maximumArchiveBytes, allowZIP64: false) }
        #expect(throws: PackagerError.self) { try FPSv2Packager.checkArchiveSize(FPSv2Packager.maximumArchiveBytes + 1, allowZIP64: false) }
    }

    @Test func zip64WritesAZIP64ArchiveWithAWarning() throws {
        let dir = TestMedia.temporaryDirectory("zip64")
        let out = dir + "/out.tdf"
        let result = try PackagerBinary.package(try TestMedia.standard(), output: out, extra: ["--zip64"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning") && result.stderr.contains("ZIP64") && result.stderr.contains("refuse"), "\(result.stderr)")
        let reader = try ZIPReader(path: out)
        #expect(reader.isZIP64)
        #expect(reader.entries.map(\.name) == FPSv2EntryName.packageEntries(components: ["video", "audio"], segmentCount: 3).map(\.name))
        #expect(try run("/usr/bin/unzip", ["-t", out]).status == 0)
        let python = try run(try IndependentTools.python(), ["-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print(len(z.namelist()))
            """, out])
        #expect(python.status == 0 && python.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "12", "\(python.stderr)")
        // Readers refuse it at §4.1, and only the container checks fail.
        let report = FPSv2Admission.check(try FPSv2Package(path: out), options: FPSv2Packager.admissionOptions(kasURL: "https://kas.example.com"))
        #expect(report.result(for: .zip32)?.status == .failed)
        #expect(report.results.filter { $0.status == .failed }.allSatisfy { $0.check.isContainerCheck || $0.check == .zip32 })
        let inspect = try run(PackagerBinary.path, ["inspect", out, "--kas-url", "https://kas.example.com"])
        #expect(inspect.status == 1 && inspect.stdoutText.contains("[FAIL] \(AdmissionCheck.zip32.rawValue)"))
        // The same content decrypts: the package is valid apart from the container.
        let package = try OpenedPackage(path: out)
        let key = try #require(package.keys["video"]).map { String(format: "%02x", $0) }.joined()
        #expect(try FFmpeg.streamHash(decrypting: try package.stream("video"), keyHex: key)
                == (try FFmpeg.streamHash(try TestMedia.standard(), map: "0:v")))
        // A directory output has no ZIP to make ZIP64.
        let directory = try PackagerBinary.package(try TestMedia.standard(), output: dir + "/dir/", extra: ["--zip64"])
        #expect(directory.status == 1 && directory.stderr.contains("--zip64"))
    }

    @Test func sencEntriesOver255BytesAreRefused() throws {
        func sample(_ subsamples: Int) -> SegmentSample {
            SegmentSample(size: UInt32(subsamples * 100), duration: 1, isSync: true, compositionOffset: 0,
                           subsamples: Array(repeating: CENCSubsample(bytesOfClearData: 20, bytesOfProtectedData: 80), count: subsamples))
        }
        // 2 + 6 × 42 = 254 bytes fits; 43 subsamples need 260.
        #expect(throws: Never.self) { _ = try MediaSegment.header(sequenceNumber: 1, decodeTime: 0, samples: [sample(42)], isVideo: true) }
        #expect(throws: PackagerError(.limitExceeded, "")) {
            _ = try MediaSegment.header(sequenceNumber: 1, decodeTime: 0, samples: [sample(1), sample(43)], isVideo: true)
        }
        // A clear (tdf-hls) fragment has no senc, so no such limit.
        #expect(throws: Never.self) {
            _ = try MediaSegment.header(sequenceNumber: 1, decodeTime: 0, samples: [sample(43)], isVideo: true, protected: false)
        }
        // A real source: 44 slices per frame.
        let source = try TestMedia.make("slices44.mp4", ["-f", "lavfi", "-i", "testsrc2=size=64x720:rate=10", "-t", "0.5",
                                                         "-c:v", "libx264", "-x264-params", "slices=44"])
        let dir = TestMedia.temporaryDirectory("senc")
        let result = try PackagerBinary.package(source, output: dir + "/out.tdf")
        #expect(result.status == 1 && result.stderr.contains("senc entry would exceed 255 bytes"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // tdf-hls fragments are clear inside their TDF: no senc, no limit.
        let stream = try TDFHLSPackager.package(input: source, output: dir + "/stream/", options: try KASFixture.options())
        #expect(stream.segmentDurations.count == 1)
    }
}
