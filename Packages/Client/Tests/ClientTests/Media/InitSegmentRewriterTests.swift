import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMMP4
import Testing
@testable import Client

extension MediaTests {
    @Suite struct InitSegmentRewriterTests {
        @Test func shakaVideoInitBecomesClearAVC() throws {
            let fixtures = try MediaFixtures.get()
            let clear = try InitSegmentRewriter.rewrite(try fixtures.shakaVideo.initBytes())
            #expect(clear.trackIDs == [1])
            #expect(clear.handlerType(of: 1) == "vide")
            let entry = try #require(clear.movie.tracks.first?.media?.mediaInformation?.sampleTable?.sampleDescription?
                .children.first(VisualSampleEntry.self))
            #expect(entry.format == "avc1")
            #expect(entry.protectionSchemeInfo == nil)
            #expect(entry.avcConfiguration != nil)
            #expect(clear.movie.protectionSystemHeaders.isEmpty)
            let protection = try #require(clear.protections[1])
            #expect(protection.originalFormat == "avc1")
            #expect(protection.scheme == "cbcs")
            #expect(protection.keyID == MediaFixtures.shakaKeyID)
            #expect(protection.perSampleIVSize == 0)
            #expect(protection.constantIV.map { Hex.encode($0) } == MediaFixtures.shakaIV)
            #expect(protection.pattern == AESCipher.CBCS.Pattern(cryptByteBlock: 1, skipByteBlock: 9))

            // The clear init parses again and has no protection box anywhere.
            let bytes = try clear.serializedBytes()
            let reparsed = try InitSegmentRewriter.rewrite(bytes)
            #expect(reparsed.protections.isEmpty)
            for type in ["encv", "sinf", "frma", "schm", "tenc", "pssh"] {
                #expect(!contains(bytes, fourCC: type), "clear init still holds '\(type)'")
            }
        }

        @Test func shakaAudioInitBecomesClearAAC() throws {
            let fixtures = try MediaFixtures.get()
            let clear = try InitSegmentRewriter.rewrite(try fixtures.shakaAudio.initBytes())
            let entry = try #require(clear.movie.tracks.first?.media?.mediaInformation?.sampleTable?.sampleDescription?
                .children.first(AudioSampleEntry.self))
            #expect(entry.format == "mp4a")
            #expect(entry.protectionSchemeInfo == nil)
            #expect(entry.elementaryStreamDescriptor != nil)
            let protection = try #require(clear.protections[1])
            #expect(protection.originalFormat == "mp4a")
            // Shaka writes the whole-block full-sample pattern as 0:0.
            #expect(protection.pattern.skipByteBlock == 0)
            // The audio 'roll' sample group is kept: only 'seig' groups go.
            #expect(contains(try clear.serializedBytes(), fourCC: "sgpd"))
        }

        /// ffprobe reads the clear init as H.264 and AAC, without any encryption side data.
        @Test func ffprobeSeesClearCodecs() throws {
            let fixtures = try MediaFixtures.get()
            for (track, codec) in [(fixtures.shakaVideo, "h264"), (fixtures.shakaAudio, "aac")] {
                let clear = try InitSegmentRewriter.rewrite(try track.initBytes())
                let url = try fixtures.write(try clear.serializedBytes(), "clear-init-\(codec).mp4")
                let probe = try Tools.run(Tools.ffprobe, ["-v", "error", "-show_entries", "stream=codec_name,codec_tag_string",
                                                          "-of", "csv=p=0", url.path])
                #expect(probe.status == 0)
                let text = String(decoding: probe.stdout, as: UTF8.self)
                #expect(text.contains(codec), "\(text)")
                #expect(!text.contains("enc"), "\(text)")
            }
        }

        @Test func everyPrefixOfAnInitIsRefusedWithATypedError() throws {
            let fixtures = try MediaFixtures.get()
            let bytes = try fixtures.shakaVideo.initBytes()
            for length in 0 ..< bytes.count {
                #expect(throws: MediaError.self) { try InitSegmentRewriter.rewrite(Array(bytes[0 ..< length])) }
            }
        }

        @Test func otherSchemesAreRefused() throws {
            let fixtures = try MediaFixtures.get()
            var bytes = try fixtures.shakaVideo.initBytes()
            let schm = try #require(find(bytes, fourCC: "schm"))
            // schm: header(8) version/flags(4) scheme_type(4)
            bytes.replaceSubrange(schm + 12 ..< schm + 16, with: Array("cenc".utf8))
            #expect(throws: MediaError(.unsupported, "")) { try InitSegmentRewriter.rewrite(bytes) }
        }

        @Test func aProtectedEntryWithoutFrmaIsRefused() throws {
            let fixtures = try MediaFixtures.get()
            var bytes = try fixtures.shakaVideo.initBytes()
            let frma = try #require(find(bytes, fourCC: "frma"))
            // Renaming frma leaves sinf without its mandatory child: the MP4 reader refuses it.
            bytes.replaceSubrange(frma + 4 ..< frma + 8, with: Array("frmb".utf8))
            #expect(throws: MediaError.self) { try InitSegmentRewriter.rewrite(bytes) }
        }

        @Test func anInitWithoutMoovIsRefused() throws {
            let ftyp = try FileTypeBox(majorBrand: "isom", minorVersion: 0, compatibleBrands: ["isom"]).serializedBytes()
            #expect(throws: MediaError(.missingBox, "")) { try InitSegmentRewriter.rewrite(ftyp) }
        }
    }
}

/// The offset of the first box header (size then type) whose type is `type`, scanning bytes.
func find(_ bytes: [UInt8], fourCC type: String) -> Int? {
    let needle = Array(type.utf8)
    guard bytes.count >= 8 else { return nil }
    for index in 4 ... bytes.count - 4 where Array(bytes[index ..< index + 4]) == needle { return index - 4 }
    return nil
}

func contains(_ bytes: [UInt8], fourCC type: String) -> Bool { find(bytes, fourCC: type) != nil }
