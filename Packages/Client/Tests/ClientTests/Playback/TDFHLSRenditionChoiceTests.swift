import MediaDRMHLS
import Testing
@testable import Client

/// `player play`'s choice among a ladder's variants and audio languages.
@Suite struct TDFHLSRenditionChoiceTests {
    let master: HLSMasterPlaylist = {
        let text = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="English",LANGUAGE="en",AUTOSELECT=YES,URI="audio-en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Spanish (Mexico)",LANGUAGE="es-MX",DEFAULT=YES,AUTOSELECT=YES,URI="audio-es-mx.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="audio"
            video-1.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,AUDIO="audio"
            video-2.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="audio"
            video-3.m3u8

            """
        return (try? HLSParser.parseMaster(Array(text.utf8))) ?? HLSMasterPlaylist()
    }()

    @Test(arguments: [
        (TDFHLSRenditionChoice(), 1),                                  // the highest BANDWIDTH, wherever it is listed
        (TDFHLSRenditionChoice(variant: 1), 0),
        (TDFHLSRenditionChoice(variant: 3, maxHeight: 2000), 2),       // --variant wins over the limits
        (TDFHLSRenditionChoice(maxHeight: 720), 0),
        (TDFHLSRenditionChoice(maxHeight: 719), 2),
        (TDFHLSRenditionChoice(maxBandwidth: 1_999_999), 2),
        (TDFHLSRenditionChoice(maxHeight: 1080, maxBandwidth: 2_000_000), 0),
    ])
    func variants(_ choice: TDFHLSRenditionChoice, _ expected: Int) throws {
        #expect(master.variants.count == 3)
        #expect(try choice.variantIndex(in: master) == expected)
    }

    @Test func choicesNothingMeetsNameTheProblem() throws {
        let small = try #require(throws: PlaybackError.self) { try TDFHLSRenditionChoice(maxHeight: 300).variantIndex(in: master) }
        #expect(small.code == .invalidArgument && small.reason.contains("the smallest is 640x360 at 800000 bit/s"), "\(small.reason)")
        let outside = try #require(throws: PlaybackError.self) { try TDFHLSRenditionChoice(variant: 4).variantIndex(in: master) }
        #expect(outside.reason.contains("has 3 (1 to 3)"), "\(outside.reason)")
        let language = try #require(throws: PlaybackError.self) {
            try TDFHLSRenditionChoice(audioLanguage: "fr").audioRendition(of: "audio", in: master)
        }
        #expect(language.reason.contains("the stream has en, es-MX"), "\(language.reason)")
    }

    @Test func audioByLanguageOrDefault() throws {
        #expect(try TDFHLSRenditionChoice().audioRendition(of: "audio", in: master)?.uri == "audio-es-mx.m3u8")
        #expect(try TDFHLSRenditionChoice(audioLanguage: "EN").audioRendition(of: "audio", in: master)?.uri == "audio-en.m3u8")
        // BCP 47 prefix: "es" matches "es-MX"; "e" does not match "en".
        #expect(try TDFHLSRenditionChoice(audioLanguage: "es").audioRendition(of: "audio", in: master)?.uri == "audio-es-mx.m3u8")
        #expect(throws: PlaybackError.self) { try TDFHLSRenditionChoice(audioLanguage: "e").audioRendition(of: "audio", in: master) }
        #expect(try TDFHLSRenditionChoice().audioRendition(of: nil, in: master) == nil)
    }
}
