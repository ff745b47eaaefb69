import Foundation
@testable import FuzzTargets
import XCTest

/// The package targets' custom mutator: what it writes is an exact archive with correct CRCs, so
/// the mutated entry, not the ZIP layer, is what admission sees.
final class ArchiveMutatorTests: XCTestCase {
    private func seed(_ target: String, _ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: CorpusReplayTests.fuzzDirectory
            .appendingPathComponent("corpus/\(target)/\(name)")))
    }

    /// Flips one byte in the middle of what it is given (a deterministic stand-in for
    /// libFuzzer's `LLVMFuzzerMutate`).
    private let flipOneByte: ArchiveMutator.ByteMutator = { bytes, _ in
        guard !bytes.isEmpty else { return }
        bytes[bytes.count / 2] ^= 0x01
    }

    func testRewritingAPackageUnchangedKeepsItAdmitted() throws {
        let package = try seed("fpsv2-admission", "av.tdf")
        let entries = try XCTUnwrap(ArchiveMutator.readEntries(package))
        let rewritten = try XCTUnwrap(ArchiveMutator.write(entries, layout: .exact))
        XCTAssertEqual(try FPSv2Target.target.run(rewritten), .accepted)
    }

    func testMutatedArchivesKeepCorrectCRCs() throws {
        for (target, name) in [("fpsv2-admission", "av.tdf"), ("tdf-archive", "tdf-rsa.tdf"), ("tdf-archive", "otdf-python.tdf")] {
            let archive = try seed(target, name)
            let original = try XCTUnwrap(ArchiveMutator.readEntries(archive))
            var changedEntries = 0
            for seed in UInt32(0) ..< 32 {
                guard let mutated = ArchiveMutator.mutateEntries(archive, maxSize: archive.count * 2, seed: seed,
                                                                 layout: target == "fpsv2-admission" ? .exact : .standard,
                                                                 mutateBytes: flipOneByte)
                else { continue }
                // Every entry reads back with its CRC verified: the ZIP target takes it whole.
                XCTAssertEqual(try ZIPTarget.target.run(mutated), .accepted, "\(name), seed \(seed)")
                let entries = try XCTUnwrap(ArchiveMutator.readEntries(mutated))
                if entries.map(\.data) != original.map(\.data) { changedEntries += 1 }
            }
            XCTAssertGreaterThan(changedEntries, 16, "\(name): most mutations change an entry's bytes")
        }
    }

    /// Most rounds keep the archive readable; the others mutate the container's bytes.
    func testOneRoundInFiveMutatesTheArchiveAsBytes() throws {
        let archive = try seed("tdf-archive", "tdf-rsa.tdf")
        let readable = (UInt32(0) ..< 200).filter { seed in
            ArchiveMutator.readEntries(ArchiveMutator.mutate(archive, maxSize: archive.count * 2, seed: seed,
                                                             layout: .standard, mutateBytes: flipOneByte)) != nil
        }.count
        XCTAssertGreaterThan(readable, 120)
        XCTAssertLessThan(readable, 200)
    }

    func testAnInputThatIsNotAnArchiveIsMutatedAsBytes() {
        let input = [UInt8]("not a zip archive".utf8)
        let mutated = ArchiveMutator.mutate(input, maxSize: 64, seed: 7, layout: .standard, mutateBytes: flipOneByte)
        XCTAssertEqual(mutated.count, input.count)
        XCTAssertNotEqual(mutated, input)
    }
}
