import Testing
import Crypto
@testable import Packager

@Suite struct ComponentKeysTests {
    @Test func everyComponentGetsItsOwnSixteenByteKey() throws {
        let keys = try ComponentKeys(components: ["video", "audio"])
        let video = try #require(keys["video"])
        let audio = try #require(keys["audio"])
        #expect(video.byteCount == 16)
        #expect(audio.byteCount == 16)
        #expect(video != audio)
        #expect(keys["subtitles"] == nil)
    }

    @Test func duplicateComponentIdsAreRefused() {
        #expect(throws: CryptoError(.invalidInput, "")) {
            try ComponentKeys(components: ["video", "video"])
        }
    }
}
