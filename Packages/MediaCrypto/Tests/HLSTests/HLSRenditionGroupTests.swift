import Foundation
import Testing
@testable import MediaDRMHLS

/// RFC 8216 §4.3.4.2 bit rates and the rendition-group rules that span several tags.
@Suite struct HLSRenditionGroupTests {
    private func master(_ lines: [String]) throws -> HLSMasterPlaylist {
        try #require(try HLSParser.parse((["#EXTM3U"] + lines).joined(separator: "\n") + "\n").master)
    }

    private let ladder = [
        #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="en.m3u8""#,
        #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Spanish",LANGUAGE="es",AUTOSELECT=YES,URI="es.m3u8""#,
        #"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="en.vtt.m3u8""#,
        #"#EXT-X-STREAM-INF:BANDWIDTH=900000,AUDIO="aud",SUBTITLES="subs""#, "hi.m3u8",
        #"#EXT-X-STREAM-INF:BANDWIDTH=300000,AUDIO="aud",SUBTITLES="subs""#, "lo.m3u8",
    ]

    @Test func peakAndAverageOfSegments() {
        // 100,000 bytes in 2 s = 400,000 bit/s; 150,000 bytes in 2 s = 600,000; 30,000 in 0.5 s = 480,000.
        let rate = HLSBitRate(sizes: [100_000, 150_000, 30_000], durations: [2, 2, 0.5])
        #expect(rate.peak == 600_000)
        #expect(rate.average == 497_778)   // 2,240,000 bits over 4.5 s, rounded up
        #expect(HLSBitRate(sizes: [], durations: []) == HLSBitRate(peak: 1, average: 1))
    }

    @Test func aVariantCountsTheLargestRenditionOfEachGroup() {
        let video = HLSBitRate(peak: 1_000_000, average: 800_000)
        let audio = [HLSBitRate(peak: 130_000, average: 128_000), HLSBitRate(peak: 70_000, average: 64_000)]
        #expect(HLSBitRate.variant(video, groups: [audio]) == HLSBitRate(peak: 1_130_000, average: 928_000))
        #expect(HLSBitRate.variant(video, groups: [[]]) == video)
    }

    @Test func aLadderWithItsGroupsPasses() throws {
        try master(ladder).checkRenditionGroups()
    }

    @Test(arguments: [
        // A variant naming an audio group that no AUDIO rendition has.
        (#"#EXT-X-STREAM-INF:BANDWIDTH=300000,AUDIO="other""#, "no EXT-X-MEDIA of that TYPE"),
        // A subtitles group named as AUDIO.
        (#"#EXT-X-STREAM-INF:BANDWIDTH=300000,AUDIO="subs""#, "no EXT-X-MEDIA of that TYPE"),
    ])
    func aVariantNamingAMissingGroupIsRefused(_ streamInf: String, _ words: String) throws {
        let playlist = try master(Array(ladder.prefix(3)) + [streamInf, "x.m3u8"])
        let error = try #require(throws: HLSError.self) { try playlist.checkRenditionGroups() }
        #expect(error.code == .inconsistent && error.reason.contains(words), "\(error.reason)")
    }

    @Test(arguments: [
        (#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="fr",URI="fr.m3u8""#, "share a NAME"),
        (#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="French",DEFAULT=YES,AUTOSELECT=YES,URI="fr.m3u8""#, "more than one"),
        (#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="x",NAME="French",DEFAULT=YES,URI="fr.m3u8""#, "AUTOSELECT=YES"),
        (#"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="x",NAME="French""#, "needs a URI"),
    ])
    func groupRulesAreEnforced(_ extra: String, _ words: String) throws {
        let playlist = try master([extra] + ladder)
        let error = try #require(throws: HLSError.self) { try playlist.checkRenditionGroups() }
        #expect(error.reason.contains(words), "\(error.reason)")
    }
}
