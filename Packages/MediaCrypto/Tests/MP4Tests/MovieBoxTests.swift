import Foundation
import Testing
@testable import MediaDRMMP4

@Suite struct MovieBoxTests {
    static func videoTrack() -> TrackBox {
        let avcC = AVCConfigurationBox(profileIndication: 0x64, profileCompatibility: 0, levelIndication: 0x0C,
                                       sequenceParameterSets: [[0x67, 0x64, 0x00, 0x0C]], pictureParameterSets: [[0x68, 0xEB]],
                                       trailingBytes: [0xFD, 0xF8, 0xF8, 0x00])
        let avc1 = VisualSampleEntry(width: 128, height: 72, children: [avcC])
        let stbl = SampleTableBox(children: [
            SampleDescriptionBox(entries: [avc1]),
            TimeToSampleBox(entries: [.init(sampleCount: 50, sampleDelta: 512)]),
            SyncSampleBox(sampleNumbers: [1, 26]),
            CompositionOffsetBox(entries: [.init(sampleCount: 1, sampleOffset: 1024)]),
            SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: 50, sampleDescriptionIndex: 1)]),
            SampleSizeBox(entrySizes: Array(repeating: 100, count: 50)),
            ChunkOffsetBox(chunkOffsets: [48]),
        ])
        let minf = MediaInformationBox(children: [VideoMediaHeaderBox(), DataInformationBox(children: [DataReferenceBox()]), stbl])
        let mdia = MediaBox(children: [MediaHeaderBox(timescale: 12800, duration: 25600, language: "und"),
                                       HandlerBox(handlerType: "vide", name: "VideoHandler"), minf])
        let edts = EditBox(children: [EditListBox(entries: [.init(segmentDuration: 2000, mediaTime: 1024)])])
        return TrackBox(children: [TrackHeaderBox(trackID: 1, duration: 2000, width: 128 << 16, height: 72 << 16), edts, mdia])
    }

    static func movie() -> MovieBox {
        MovieBox(children: [MovieHeaderBox(timescale: 1000, duration: 2000, nextTrackID: 2), videoTrack(),
                            UnknownBox(type: "udta", payload: [1, 2, 3])])
    }

    @Test func fileTypeAndSegmentType() throws {
        let ftyp = FileTypeBox(majorBrand: "isom", minorVersion: 512, compatibleBrands: ["isom", "iso2", "avc1", "mp41"])
        let bytes = try roundTrip(ftyp)
        #expect(bytes == box("ftyp", Array("isom".utf8) + be32(512) + Array("isomiso2avc1mp41".utf8)))
        try roundTrip(FileTypeBox(type: "styp", majorBrand: "msdh", minorVersion: 0, compatibleBrands: ["msdh", "msix"]))
        expectFailure(box("ftyp", Array("isom".utf8) + be32(0) + [1, 2]), as: FileTypeBox.self, .invalidSize)
        expectWriteFailure(FileTypeBox(type: "moov", majorBrand: "isom", minorVersion: 0, compatibleBrands: []), .invalidField)
    }

    @Test func movieHeaderVersions() throws {
        var mvhd = MovieHeaderBox(timescale: 1000, duration: 2000, nextTrackID: 3)
        let bytes = try roundTrip(mvhd)
        #expect(bytes.count == 108)
        #expect(bytes[8] == 0)
        mvhd.duration = 1 << 40
        mvhd.version = 1
        let wide = try roundTrip(mvhd)
        #expect(wide.count == 120)
        // Normalisation: a version-0 box whose duration needs 64 bits is written as version 1.
        mvhd.version = 0
        #expect(try mvhd.serializedBytes() == wide)
        mvhd.timescale = 0
        expectWriteFailure(mvhd, .invalidField)
        var zeroTimescale = bytes
        zeroTimescale.replaceSubrange(20 ..< 24, with: be32(0))
        expectFailure(zeroTimescale, as: MovieHeaderBox.self, .invalidField)
    }

    @Test func trackHeader() throws {
        var tkhd = TrackHeaderBox(trackID: 2, duration: 1000, volume: 0x0100)
        tkhd.alternateGroup = 1
        let bytes = try roundTrip(tkhd)
        #expect(bytes.count == 92)
        tkhd.creationTime = 1 << 33
        tkhd.version = 1
        #expect(try roundTrip(tkhd).count == 104)
        tkhd.trackID = 0
        expectWriteFailure(tkhd, .invalidField)
        var zero = bytes
        zero.replaceSubrange(20 ..< 24, with: be32(0))
        expectFailure(zero, as: TrackHeaderBox.self, .invalidField)
        var badMatrix = TrackHeaderBox(trackID: 1, duration: 0)
        badMatrix.matrix = [1, 2]
        expectWriteFailure(badMatrix, .invalidField)
    }

    @Test func editList() throws {
        let elst = EditListBox(entries: [.init(segmentDuration: 2000, mediaTime: -1), .init(segmentDuration: 10, mediaTime: 1024)])
        let bytes = try roundTrip(elst)
        #expect(bytes == fullBox("elst", version: 0, flags: 0, be32(2) + be32(2000) + be32(0xFFFF_FFFF) + be16(1) + be16(0)
                                 + be32(10) + be32(1024) + be16(1) + be16(0)))
        var wide = EditListBox(entries: [.init(segmentDuration: 1 << 35, mediaTime: -1)])
        wide.version = 1
        let wideBytes = try roundTrip(wide)
        #expect(wideBytes.count == 12 + 4 + 20)
        wide.version = 0
        #expect(try wide.serializedBytes() == wideBytes)
        try roundTrip(EditBox(children: [elst]))
    }

    @Test func mediaHeaderLanguage() throws {
        var mdhd = MediaHeaderBox(timescale: 44100, duration: 88200, language: "eng")
        #expect(mdhd.packedLanguage == 0x15C7)
        #expect(mdhd.language == "eng")
        let bytes = try roundTrip(mdhd)
        #expect(bytes.count == 32)
        mdhd.language = "EN"
        #expect(mdhd.language == "und")
        mdhd.duration = 1 << 32
        mdhd.version = 1
        #expect(try roundTrip(mdhd).count == 44)
    }

    @Test func handler() throws {
        let hdlr = HandlerBox(handlerType: "soun", name: "SoundHandler")
        let bytes = try roundTrip(hdlr)
        #expect(bytes == fullBox("hdlr", version: 0, flags: 0, be32(0) + Array("soun".utf8) + Array(repeating: 0, count: 12)
                                 + Array("SoundHandler".utf8) + [0]))
        #expect(try HandlerBox(parsing: bytes).name == "SoundHandler")
        // A QuickTime-style name without the NUL is kept as stored.
        let raw = fullBox("hdlr", version: 0, flags: 0, be32(0) + Array("vide".utf8) + Array(repeating: 0, count: 12) + [3, 65, 66, 67])
        try readWrite(raw, as: HandlerBox.self)
    }

    @Test func mediaHeaders() throws {
        #expect(try roundTrip(VideoMediaHeaderBox()) == fullBox("vmhd", version: 0, flags: 1, Array(repeating: 0, count: 8)))
        var smhd = SoundMediaHeaderBox()
        smhd.balance = -256
        #expect(try roundTrip(smhd) == fullBox("smhd", version: 0, flags: 0, [0xFF, 0x00, 0, 0]))
    }

    @Test func dataReference() throws {
        let dref = DataReferenceBox()
        let bytes = try roundTrip(dref)
        #expect(bytes == fullBox("dref", version: 0, flags: 0, be32(1) + fullBox("url ", version: 0, flags: 1, [])))
        var url = DataEntryUrlBox()
        url.flags = 0
        url.location = Array("http://x/\0".utf8)
        try roundTrip(url)
        try roundTrip(DataInformationBox(children: [DataReferenceBox(entries: [url, UnknownBox(type: "urn ", payload: [0, 0, 0, 0])])]))
        expectFailure(fullBox("dref", version: 0, flags: 0, be32(2) + fullBox("url ", version: 0, flags: 1, [])),
                      as: DataReferenceBox.self, .countTooLarge)
    }

    @Test func containers() throws {
        let track = Self.videoTrack()
        try roundTrip(track)
        try roundTrip(track.media ?? MediaBox())
        try roundTrip(track.media?.mediaInformation ?? MediaInformationBox())
        try roundTrip(track.media?.mediaInformation?.sampleTable ?? SampleTableBox())
        let movie = Self.movie()
        let bytes = try roundTrip(movie)
        let parsed = try MovieBox(parsing: bytes)
        #expect(parsed.tracks.count == 1)
        #expect(parsed.movieHeader?.nextTrackID == 2)
        #expect(parsed.tracks[0].media?.handler?.handlerType == "vide")
        #expect(parsed.children.boxes.last?.boxType == "udta")
        checkEveryPrefix(of: bytes, as: MovieBox.self)
    }

    @Test func mandatoryChildren() throws {
        expectWriteFailure(MovieBox(), .missingBox)
        expectFailure(box("moov", []), as: MovieBox.self, .missingBox)
        let mvhd = try MovieHeaderBox().serializedBytes()
        expectFailure(box("moov", mvhd + mvhd), as: MovieBox.self, .missingBox)
        var stbl = Self.videoTrack().media?.mediaInformation?.sampleTable ?? SampleTableBox()
        stbl.children.removeAll(ChunkOffsetBox.self)
        expectWriteFailure(stbl, .missingBox)
        stbl.children.append(ChunkLargeOffsetBox(chunkOffsets: [1 << 40]))
        try roundTrip(stbl)
        var track = Self.videoTrack()
        track.children.removeAll(MediaBox.self)
        expectWriteFailure(track, .missingBox)
    }

    @Test func typedAccessorsReplaceInPlace() throws {
        var movie = Self.movie()
        var header = try #require(movie.movieHeader)
        header.nextTrackID = 9
        movie.movieHeader = header
        #expect(movie.children.boxes.first?.boxType == "mvhd")
        #expect(movie.movieHeader?.nextTrackID == 9)
        movie.movieExtends = MovieExtendsBox(children: [TrackExtendsBox(trackID: 1)])
        #expect(movie.children.boxes.last?.boxType == "mvex")
        try roundTrip(movie)
    }
}
