import Foundation
import FuzzTargets
import XCTest

/// Every checked-in corpus input and every regression input (a crash or finding once made by
/// the fuzzer, kept under its name) through the same entry points the libFuzzer harness calls,
/// without a sanitizer: a fixed bug stays fixed, and a parser change that crashes on a corpus
/// input fails `make test`. See docs/fuzzing.md.
final class CorpusReplayTests: XCTestCase {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    override class func tearDown() {
        FuzzTargets.shutDown()
        super.tearDown()
    }

    /// Each target has a non-empty corpus, and every corpus folder names a target.
    func testEveryTargetHasACorpus() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.fuzzDirectory.appendingPathComponent("corpus").path)
        XCTAssertEqual(Set(folders), Set(FuzzTargets.all.map(\.name)))
        for target in FuzzTargets.all {
            XCTAssertFalse(try inputs(of: target, in: "corpus").isEmpty, "\(target.name) has no corpus")
        }
    }

    /// Every seed is a valid input that goes the whole path of its target (a package admitted
    /// and decrypted, a TDF decrypted with the fixture key, a key request answered with a key):
    /// depth, not existence.
    func testCorpusReplaysAndEverySeedIsAccepted() throws {
        var count = 0
        for target in FuzzTargets.all {
            for (file, outcome) in try replay(target, from: "corpus") {
                XCTAssertEqual(outcome, .accepted, "corpus/\(target.name)/\(file) is refused by its target: regenerate the seeds (Tests/Fuzz/make-seeds.sh)")
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 0)
    }

    /// Inputs that once crashed or broke an invariant: refused (or taken) without a finding.
    func testRegressionInputsReplay() throws {
        for target in FuzzTargets.all {
            _ = try replay(target, from: "regressions")
        }
    }

    private func inputs(of target: FuzzTarget, in folder: String) throws -> [URL] {
        let directory = Self.fuzzDirectory.appendingPathComponent(folder).appendingPathComponent(target.name)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    private func replay(_ target: FuzzTarget, from folder: String) throws -> [(String, FuzzOutcome?)] {
        try inputs(of: target, in: folder).map { file in
            let input = try [UInt8](Data(contentsOf: file))
            do {
                return (file.lastPathComponent, try target.run(input))
            } catch {
                XCTFail("\(folder)/\(target.name)/\(file.lastPathComponent): \(error)")
                return (file.lastPathComponent, nil)
            }
        }
    }
}
