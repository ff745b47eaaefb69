import Foundation
import MediaDRMJSON
import Testing
@testable import Client

/// Issue 33: the web player's page shows the refusals in the Swift client's words, from
/// `Packages/WebPlayer/player/refusals.json`, which `player refusals` writes from
/// `PlaybackRefusalTable`. The committed file must be exactly what the table writes now.
@Suite struct RefusalTableTests {
    /// Packages/WebPlayer/player/refusals.json, found from this file's place in the repository.
    static let committed = URL(fileURLWithPath: #filePath)   // Packages/Client/Tests/ClientTests/Playback/
        .deletingLastPathComponent().appendingPathComponent("../../../../WebPlayer/player/refusals.json").standardized

    @Test func theCommittedFileIsWhatTheTableWrites() throws {
        let file = try Data(contentsOf: Self.committed)
        #expect(file == PlaybackRefusalTable.json(),
                "refusals.json differs from the Swift table: run `player refusals > Packages/WebPlayer/player/refusals.json`")
    }

    @Test func everyRefusalHasItsWordsOnceUnderItsCode() throws {
        let table = try #require(try JSONParser.parse(PlaybackRefusalTable.json()).object)
        #expect(table["version"]?.int64 == Int64(PlaybackRefusalTable.version))
        let refusals = try #require(table["refusals"]?.object)
        #expect(refusals.members.count == PlaybackError.Refusal.allCases.count)
        for refusal in PlaybackError.Refusal.allCases {
            let words = try #require(refusals[refusal.code]?.object, "\(refusal.code)")
            #expect(words["explanation"]?.string == refusal.explanation)
            #expect(words["nextStep"]?.string == refusal.nextStep)
            // A next step is a sentence of its own; an explanation without one says what to do itself.
            if let next = refusal.nextStep {
                #expect(next.first?.isUppercase == true && next.hasSuffix("."), "\(refusal.code): \(next)")
            } else {
                #expect(refusal.explanation.contains(": "), "\(refusal.code) has no next step")
            }
        }
    }
}
