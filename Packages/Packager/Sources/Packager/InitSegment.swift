// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMMP4

/// The one-track CMAF init segment of a component (fps-v2 §8): `ftyp`, and a `moov` whose only
/// track carries the protected sample entry (`encv`, whose `frma` keeps `avc1`, `hvc1` or `hev1`
/// and whose `avcC` or `hvcC` stays, with `tenc` version 1 and pattern 1:9 for video, `enca` with `tenc` version 0 and pattern byte 0 for audio), constant IV, no per-sample
/// IV, empty sample tables and `mvex`/`trex`. No `pssh` in fps-v2: FairPlay finds its key by the
/// `skd://` URI and the profile names no other system. The cmaf profile adds the W3C common
/// `pssh` (`CommonProtectionSystem`) at the end of `moov`, as browsers' EME needs init data.
public enum InitSegment {
    /// The track ID every component's single track uses.
    public static let trackID: UInt32 = 1

    public static let fileType = FileTypeBox(majorBrand: "iso6", minorVersion: 0, compatibleBrands: ["iso6", "cmfc", "mp41"])

    /// - Parameter systems: `pssh` boxes appended to `moov` (none in fps-v2).
    public static func video(_ track: SourceTrack, keyID: [UInt8], constantIV: [UInt8],
                             systems: [ProtectionSystemSpecificHeaderBox] = []) throws(PackagerError) -> [UInt8] {
        try video(track, protection: (keyID, constantIV), systems: systems)
    }

    /// The clear init of tdf-hls: the same track with its `avc1`, `hvc1` or `hev1` entry and no `sinf`.
    public static func clearVideo(_ track: SourceTrack) throws(PackagerError) -> [UInt8] {
        try video(track, protection: nil)
    }

    public static func clearAudio(_ track: SourceTrack) throws(PackagerError) -> [UInt8] {
        try audio(track, protection: nil)
    }

    static func video(_ track: SourceTrack, protection keys: (keyID: [UInt8], constantIV: [UInt8])?,
                      systems: [ProtectionSystemSpecificHeaderBox] = []) throws(PackagerError) -> [UInt8] {
        guard var entry = track.videoEntry,
              (entry.format == "avc1" && entry.avcConfiguration != nil) || (track.isHEVC && entry.hevcConfiguration != nil) else {
            throw PackagerError(.unsupportedInput, "\(track.name) is not H.264 in an 'avc1' entry with 'avcC' nor HEVC in 'hvc1'/'hev1' with 'hvcC'")
        }
        entry.children.removeAll(ProtectionSchemeInfoBox.self)
        if let keys {
            let original = entry.format
            entry.format = "encv"
            entry.children.append(protection(original: original, tenc: TrackEncryptionBox(
                defaultIsProtected: 1, defaultPerSampleIVSize: 0, defaultKID: keys.keyID, defaultConstantIV: keys.constantIV,
                defaultCryptByteBlock: 1, defaultSkipByteBlock: 9)))
        }
        var vmhd = VideoMediaHeaderBox()
        vmhd.flags = 1
        let tkhd = TrackHeaderBox(trackID: trackID, duration: 0, width: UInt32(entry.width) << 16, height: UInt32(entry.height) << 16)
        return try movie(track: track, entry: entry, handler: HandlerBox(handlerType: "vide", name: "VideoHandler"),
                         mediaHeader: vmhd, trackHeader: tkhd, systems: systems)
    }

    public static func audio(_ track: SourceTrack, keyID: [UInt8], constantIV: [UInt8],
                             systems: [ProtectionSystemSpecificHeaderBox] = []) throws(PackagerError) -> [UInt8] {
        try audio(track, protection: (keyID, constantIV), systems: systems)
    }

    static func audio(_ track: SourceTrack, protection keys: (keyID: [UInt8], constantIV: [UInt8])?,
                      systems: [ProtectionSystemSpecificHeaderBox] = []) throws(PackagerError) -> [UInt8] {
        guard var entry = track.audioEntry, entry.format == "mp4a", entry.elementaryStreamDescriptor != nil else {
            throw PackagerError(.unsupportedInput, "\(track.name) is not MPEG-4 audio in an 'mp4a' entry with 'esds'")
        }
        // QuickTime sound description versions 1 and 2 are not ISO; the esds carries the truth.
        if entry.soundVersion != 0 {
            entry.soundVersion = 0
            entry.quickTimeExtension = []
        }
        entry.children.removeAll(ProtectionSchemeInfoBox.self)
        if let keys {
            entry.format = "enca"
            var tenc = TrackEncryptionBox(defaultIsProtected: 1, defaultPerSampleIVSize: 0, defaultKID: keys.keyID,
                                          defaultConstantIV: keys.constantIV)
            tenc.version = 0
            entry.children.append(protection(original: "mp4a", tenc: tenc))
        }
        var tkhd = TrackHeaderBox(trackID: trackID, duration: 0)
        tkhd.volume = 0x0100
        return try movie(track: track, entry: entry, handler: HandlerBox(handlerType: "soun", name: "SoundHandler"),
                         mediaHeader: SoundMediaHeaderBox(), trackHeader: tkhd, systems: systems)
    }

    static func protection(original: FourCC, tenc: TrackEncryptionBox) -> ProtectionSchemeInfoBox {
        var schi = SchemeInformationBox()
        schi.children.append(tenc)
        var sinf = ProtectionSchemeInfoBox()
        sinf.children.append(OriginalFormatBox(dataFormat: original))
        sinf.children.append(SchemeTypeBox(schemeType: "cbcs", schemeVersion: 0x0001_0000))
        sinf.children.append(schi)
        return sinf
    }

    static func movie(track: SourceTrack, entry: some MP4Box, handler: HandlerBox, mediaHeader: some MP4Box,
                      trackHeader: TrackHeaderBox, systems: [ProtectionSystemSpecificHeaderBox]) throws(PackagerError) -> [UInt8] {
        var stbl = SampleTableBox()
        stbl.children.append(SampleDescriptionBox(entries: [entry]))
        stbl.children.append(TimeToSampleBox())
        stbl.children.append(SampleToChunkBox())
        stbl.children.append(SampleSizeBox(sampleSize: 0, sampleCount: 0))
        stbl.children.append(ChunkOffsetBox())
        var dinf = DataInformationBox()
        dinf.children.append(DataReferenceBox())
        var minf = MediaInformationBox()
        minf.children.append(mediaHeader)
        minf.children.append(dinf)
        minf.children.append(stbl)
        var mdia = MediaBox()
        mdia.children.append(MediaHeaderBox(timescale: track.timescale, duration: 0, language: track.language))
        mdia.children.append(handler)
        mdia.children.append(minf)
        var trak = TrackBox()
        trak.children.append(trackHeader)
        trak.children.append(mdia)
        var mvex = MovieExtendsBox()
        mvex.children.append(TrackExtendsBox(trackID: trackID))
        var moov = MovieBox()
        moov.children.append(MovieHeaderBox(timescale: track.timescale, duration: 0, nextTrackID: trackID + 1))
        moov.children.append(trak)
        moov.children.append(mvex)
        for system in systems { moov.children.append(system) }
        do {
            return try BoxParser.serialize([fileType, moov])
        } catch {
            throw PackagerError(.malformedInput, "the init segment could not be written: \(error.reason)")
        }
    }
}
