import Testing
@testable import Packager

/// `--audio FILE:lang=TAG` and `--ladder RUNGS` as the packager reads them.
@Suite struct LadderArgumentTests {
    @Test func audioInputs() throws {
        #expect(try AudioInput(argument: "talk.es.m4a:lang=es") == AudioInput(path: "talk.es.m4a", language: "es"))
        #expect(try AudioInput(argument: "a:b/talk.m4a:lang=pt-BR") == AudioInput(path: "a:b/talk.m4a", language: "pt-BR"))
        #expect(try AudioInput(argument: "talk.m4a") == AudioInput(path: "talk.m4a"))
        for bad in ["x.m4a:lang=", "x.m4a:lang=e", "x.m4a:lang=english1", "x.m4a:lang=en--US", "x.m4a:lang=en_US"] {
            let error = try #require(throws: PackagerError.self) { try AudioInput(argument: bad) }
            #expect(error.reason.contains("is not a BCP 47 language tag"), "\(bad): \(error.reason)")
        }
    }

    @Test func languageNames() {
        #expect(LanguageTag.displayName("en") == "English")
        #expect(LanguageTag.displayName("es-MX") == "Spanish (es-MX)")
        #expect(LanguageTag.displayName("tlh") == "tlh")
    }

    @Test func ladders() throws {
        #expect(try BitrateLadder(argument: "1080p,720p, 360p").rungs.map(\.height) == [1080, 720, 360])
        let unknown = try #require(throws: PackagerError.self) { try BitrateLadder(argument: "720p,333p") }
        #expect(unknown.reason.contains("'333p' is not a ladder rung"), "\(unknown.reason)")
        #expect(throws: PackagerError.self) { try BitrateLadder(argument: "720p,720p") }
        #expect(throws: PackagerError.self) { try BitrateLadder(argument: "") }
    }

    /// One IDR cadence for every rung: forced IDR frames at every 2 s (or each segment when
    /// shorter), no scene-cut keyframes, closed GOPs.
    @Test func rungArgumentsForceOneClosedIDRCadence() throws {
        let rung = try #require(BitrateLadder.known.first { $0.name == "480p" })
        let six = BitrateLadder.arguments(input: "in.mov", rung: rung, segmentDuration: 6, output: "out.mp4").joined(separator: " ")
        #expect(six.contains("-force_key_frames expr:gte(t,n_forced*2.000000) -forced-idr 1 -sc_threshold 0"))
        #expect(six.contains("open-gop=0:scenecut=0") && six.contains("scale=-2:480") && six.contains("-b:v 1400000") && six.contains("-an"))
        let one = BitrateLadder.arguments(input: "in.mov", rung: rung, segmentDuration: 1, output: "out.mp4").joined(separator: " ")
        #expect(one.contains("n_forced*1.000000"))
    }
}
