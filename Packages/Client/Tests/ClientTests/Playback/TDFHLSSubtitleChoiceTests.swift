import MediaDRMHLS
import Testing
@testable import Client

/// `player play --subtitles-out [--subtitles-lang]`: which subtitle rendition of the variant's
/// SUBTITLES group is read.
@Suite struct TDFHLSSubtitleChoiceTests {
    let master: HLSMasterPlaylist = {
        let text = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",AUTOSELECT=YES,URI="subtitles-en.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Chinese (Traditional)",LANGUAGE="zh-Hant",AUTOSELECT=YES,URI="subtitles-zh-hant.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,SUBTITLES="subs"
            video-1.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000
            video-2.m3u8

            """
        return (try? HLSParser.parseMaster(Array(text.utf8))) ?? HLSMasterPlaylist()
    }()

    @Test func choosesByLanguageElseTheFirst() throws {
        let group = master.variants[0].subtitles
        #expect(try TDFHLSRenditionChoice().subtitleRendition(of: group, in: master) == nil)  // not asked for
        #expect(try TDFHLSRenditionChoice(subtitles: true).subtitleRendition(of: group, in: master)?.language == "en")
        #expect(try TDFHLSRenditionChoice(subtitleLanguage: "zh").subtitleRendition(of: group, in: master)?.language == "zh-Hant")
        #expect(try TDFHLSRenditionChoice(subtitleLanguage: "ZH-hant").subtitleRendition(of: group, in: master)?.uri == "subtitles-zh-hant.m3u8")
    }

    @Test func refusalsNameTheProblem() throws {
        let none = try #require(throws: PlaybackError.self) {
            try TDFHLSRenditionChoice(subtitleLanguage: "fr").subtitleRendition(of: "subs", in: master)
        }
        #expect(none.code == .invalidArgument && none.reason.contains("no subtitle rendition in language 'fr'; the stream has en, zh-Hant"), "\(none.reason)")
        let noGroup = try #require(throws: PlaybackError.self) {
            try TDFHLSRenditionChoice(subtitles: true).subtitleRendition(of: master.variants[1].subtitles, in: master)
        }
        #expect(noGroup.code == .invalidArgument && noGroup.reason.contains("no SUBTITLES group"), "\(noGroup.reason)")
    }
}
