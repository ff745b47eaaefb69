import Foundation
import Testing
@testable import MediaDRMMP4

/// Files made by ffmpeg (libx264 + AAC) during the test run: parsed fully, re-serialised byte for
/// byte, and truncated at every length.
// ffmpeg is installed by `make deps`; without it these tests fail rather than skip.
@Suite
struct RealFileTests {
    struct Loaded {
        var headers: [BoxHeader]
        var source: MP4FileSource
        func bytes(of header: BoxHeader) throws -> [UInt8] {
            try source.read(offset: header.offset, count: Int(header.size))
        }
    }

    func load(_ url: URL?) throws -> Loaded {
        let url = try #require(url, "ffmpeg failed to make the test file")
        let source = try MP4FileSource(path: url.path)
        var iterator = BoxIterator(source: source)
        return Loaded(headers: try iterator.all(), source: source)
    }

    @Test func progressiveMovieRoundTrips() throws {
        let file = try load(TestMedia.progressive)
        #expect(file.headers.map(\.type).contains("moov"))
        let mdatHeader = try #require(file.headers.first { $0.type == "mdat" })
        let moovHeader = try #require(file.headers.first { $0.type == "moov" })
        let moovBytes = try file.bytes(of: moovHeader)
        let moov = try MovieBox(parsing: moovBytes)
        #expect(try moov.serializedBytes() == moovBytes)

        #expect(moov.tracks.count == 2)
        let video = try #require(moov.tracks.first { $0.media?.handler?.handlerType == "vide" })
        let audio = try #require(moov.tracks.first { $0.media?.handler?.handlerType == "soun" })
        let vstbl = try #require(video.media?.mediaInformation?.sampleTable)
        let avc1 = try #require(vstbl.sampleDescription?.children.first(VisualSampleEntry.self))
        #expect(avc1.width == 128 && avc1.height == 72)
        let avcC = try #require(avc1.avcConfiguration)
        #expect(avcC.nalUnitLengthSize == 4)
        #expect(avcC.sequenceParameterSets.count == 1 && avcC.sequenceParameterSets[0].first.map { $0 & 0x1F } == 7)
        #expect(avcC.pictureParameterSets.count == 1 && avcC.pictureParameterSets[0].first.map { $0 & 0x1F } == 8)
        #expect(vstbl.sampleSize?.sampleCount == 50)
        #expect(vstbl.syncSample?.sampleNumbers.first == 1)
        // The samples lie inside the mdat.
        for offset in vstbl.chunkOffsets {
            #expect(offset >= mdatHeader.payloadOffset && offset < mdatHeader.endOffset)
        }
        let astbl = try #require(audio.media?.mediaInformation?.sampleTable)
        let mp4a = try #require(astbl.sampleDescription?.children.first(AudioSampleEntry.self))
        #expect(mp4a.sampleRateHz == 44100)
        let asc = try #require(mp4a.elementaryStreamDescriptor?.descriptor.decoderConfig.decoderSpecificInfo?.audioSpecificConfig)
        #expect(asc.count >= 2)
        #expect(asc[0] >> 3 == 2)  // AAC-LC
        #expect(mp4a.elementaryStreamDescriptor?.descriptor.decoderConfig.objectTypeIndication == 0x40)

        // Every box of the moov also round-trips on its own.
        for track in moov.tracks {
            try roundTrip(track)
            for box in track.media?.mediaInformation?.sampleTable?.children.boxes ?? [] {
                var coder = BoxCoder(writingWith: DecodingOptions())
                try coder.writeBox(box)
                let reparsed = try BoxParser.parse(coder.output)
                #expect(reparsed.count == 1 && reparsed[0].isEqual(to: box))
            }
        }
        checkEveryPrefix(of: moovBytes, as: MovieBox.self)
    }

    @Test func bFramesGiveCompositionOffsets() throws {
        let file = try load(TestMedia.bFrames)
        let moovHeader = try #require(file.headers.first { $0.type == "moov" })
        let moovBytes = try file.bytes(of: moovHeader)
        let moov = try MovieBox(parsing: moovBytes)
        #expect(try moov.serializedBytes() == moovBytes)
        let video = try #require(moov.tracks.first { $0.media?.handler?.handlerType == "vide" })
        let ctts = try #require(video.media?.mediaInformation?.sampleTable?.compositionOffset)
        #expect(ctts.entries.reduce(0) { $0 + Int($1.sampleCount) } == 50)
        #expect(video.edit?.editList?.entries.isEmpty == false)
    }

    @Test func fragmentedFileRoundTrips() throws {
        let file = try load(TestMedia.fragmented)
        let types = file.headers.map(\.type)
        #expect(types.first == "ftyp")
        let moovHeader = try #require(file.headers.first { $0.type == "moov" })
        let moovBytes = try file.bytes(of: moovHeader)
        let moov = try MovieBox(parsing: moovBytes)
        #expect(try moov.serializedBytes() == moovBytes)
        let trex = try #require(moov.movieExtends?.trackExtends)
        #expect(trex.count == 2)

        let moofs = file.headers.filter { $0.type == "moof" }
        #expect(moofs.count >= 2)
        #expect(types.filter { $0 == "mdat" }.count == moofs.count)
        var videoSamples = 0
        let videoID = try #require(moov.tracks.first { $0.media?.handler?.handlerType == "vide" }?.trackHeader?.trackID)
        for (index, header) in moofs.enumerated() {
            let bytes = try file.bytes(of: header)
            let moof = try MovieFragmentBox(parsing: bytes)
            #expect(try moof.serializedBytes() == bytes)
            #expect(moof.movieFragmentHeader?.sequenceNumber == UInt32(index + 1))
            for traf in moof.trackFragments {
                let tfhd = try #require(traf.trackFragmentHeader)
                #expect(tfhd.defaultBaseIsMoof)
                for trun in traf.trackRuns {
                    // default-base-is-moof: the data offset points into the mdat that follows.
                    let dataStart = header.offset + UInt64(try #require(trun.dataOffset))
                    let mdat = try #require(file.headers.first { $0.offset == header.endOffset })
                    #expect(mdat.type == "mdat")
                    #expect(dataStart >= mdat.payloadOffset && dataStart < mdat.endOffset)
                    if tfhd.trackID == videoID { videoSamples += trun.samples.count }
                }
            }
            if index == 0 { checkEveryPrefix(of: bytes, as: MovieFragmentBox.self) }
        }
        #expect(videoSamples == 50)
        // The whole file as one in-memory sequence.
        let whole = try file.source.read(offset: 0, count: Int(file.source.size))
        let boxes = try BoxParser.parse(whole)
        #expect(boxes.map(\.boxType) == types)
    }

    @Test func encryptedMovieRoundTrips() throws {
        let file = try load(TestMedia.encrypted)
        let moovHeader = try #require(file.headers.first { $0.type == "moov" })
        let moovBytes = try file.bytes(of: moovHeader)
        // First pass learns each track's IV size from its tenc; the second reads senc with it.
        let sizes = try MovieBox(parsing: moovBytes, options: DecodingOptions(defaultPerSampleIVSize: 8)).perSampleIVSizes
        #expect(sizes.count == 2)
        #expect(sizes.values.allSatisfy { $0 == 8 })
        let options = DecodingOptions(perSampleIVSizes: sizes)
        let moov = try MovieBox(parsing: moovBytes, options: options)
        #expect(try moov.serializedBytes() == moovBytes)
        checkEveryPrefix(of: moovBytes, as: MovieBox.self, options: options)

        var sencCount = 0
        for track in moov.tracks {
            let stbl = try #require(track.media?.mediaInformation?.sampleTable)
            let entry = try #require(stbl.sampleDescription?.children.boxes.first)
            #expect(["encv", "enca"].contains(entry.boxType))
            let sinf = try #require((entry as? VisualSampleEntry)?.protectionSchemeInfo ?? (entry as? AudioSampleEntry)?.protectionSchemeInfo)
            #expect(sinf.schemeType?.schemeType == "cenc")
            #expect(["avc1", "mp4a"].contains(sinf.originalFormat?.dataFormat))
            let tenc = try #require(sinf.schemeInformation?.trackEncryption)
            #expect(tenc.defaultKID == hex(TestMedia.kidHex))
            #expect(tenc.defaultIsProtected == 1)

            let senc = try #require(stbl.children.first(SampleEncryptionBox.self))
            sencCount += 1
            let sampleCount = Int(try #require(stbl.sampleSize?.sampleCount))
            #expect(senc.samples.count == sampleCount)
            #expect(senc.usesSubsamples == (entry.boxType == "encv"))
            if senc.usesSubsamples, let sizes = stbl.sampleSize {
                // Each sample's subsamples cover exactly the sample.
                for (index, sample) in senc.samples.enumerated() {
                    let covered = sample.subsamples.reduce(0) { $0 + Int($1.bytesOfClearData) + Int($1.bytesOfProtectedData) }
                    #expect(UInt32(covered) == sizes.size(ofSample: index))
                }
            }
            let saiz = try #require(stbl.children.first(SampleAuxiliaryInformationSizesBox.self))
            #expect(Int(saiz.sampleCount) == sampleCount)
            let saio = try #require(stbl.children.first(SampleAuxiliaryInformationOffsetsBox.self))
            // saio points at the senc's first entry, an absolute file offset here.
            let sencOffset = try #require(saio.offsets.first)
            #expect(sencOffset > moovHeader.offset && sencOffset < moovHeader.endOffset)
        }
        #expect(sencCount == 2)
    }
}
