// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMMP4
import MediaDRMMedia

/// What the reader rows of §8.1 and §8.2 find in one component's `<id>-init.mp4`, one check at a
/// time so each failure names its row. Every step takes what the previous one produced.
struct InitInspection {
    let kind: MediaComponentKind
    let bytes: [UInt8]

    private func refuse(_ check: AdmissionCheck, _ why: String) -> FPSv2Error {
        FPSv2Error(.refused, "\(kind.id)-init.mp4: \(why)", check: check)
    }

    /// #1: a well-formed box tree with exactly one `moov`.
    func movie() throws(FPSv2Error) -> MovieBox {
        let boxes: [any MP4Box]
        do {
            boxes = try BoxParser.parse(bytes)
        } catch {
            throw refuse(.initBoxTree, "not a well-formed box tree (\(error.reason))")
        }
        let movies = boxes.compactMap { $0 as? MovieBox }
        guard movies.count == 1, let movie = movies.first else {
            throw refuse(.initBoxTree, "holds \(movies.count) moov boxes, not exactly one")
        }
        return movie
    }

    /// #2: exactly one track, of the component's kind.
    func track(in movie: MovieBox) throws(FPSv2Error) -> TrackBox {
        let tracks = movie.tracks
        guard tracks.count == 1, let track = tracks.first else {
            throw refuse(.initTrack, "holds \(tracks.count) tracks, not exactly one")
        }
        guard let handler = track.media?.handler?.handlerType, handler.description == kind.handlerType else {
            throw refuse(.initTrack, "its track is not of kind \(kind.id)")
        }
        return track
    }

    /// #3: the one sample entry is `encv` (video) or `enca` (audio).
    func sampleEntry(of track: TrackBox) throws(FPSv2Error) -> any MP4Box {
        guard let entries = track.media?.mediaInformation?.sampleTable?.sampleDescription?.children.boxes else {
            throw refuse(.initSampleEntry, "its track has no sample description")
        }
        guard entries.count == 1, let entry = entries.first else {
            throw refuse(.initSampleEntry, "its sample description holds \(entries.count) entries, not exactly one")
        }
        guard entry.boxType.description == kind.protectedFormat else {
            throw refuse(.initSampleEntry, "its sample entry is '\(entry.boxType)', not '\(kind.protectedFormat)' (a clear track is unsupported)")
        }
        switch kind {
        case .video:
            guard entry is VisualSampleEntry else { throw refuse(.initSampleEntry, "its sample entry is not a visual sample entry") }
        case .audio:
            guard entry is AudioSampleEntry else { throw refuse(.initSampleEntry, "its sample entry is not an audio sample entry") }
        }
        return entry
    }

    static func protection(of entry: any MP4Box) -> (sinfs: [ProtectionSchemeInfoBox], children: BoxList) {
        if let visual = entry as? VisualSampleEntry { return (visual.children.all(ProtectionSchemeInfoBox.self), visual.children) }
        if let audio = entry as? AudioSampleEntry { return (audio.children.all(ProtectionSchemeInfoBox.self), audio.children) }
        return ([], BoxList())
    }

    /// #4: one `sinf` whose `frma` names the clear format.
    func protectionInfo(of entry: any MP4Box) throws(FPSv2Error) -> ProtectionSchemeInfoBox {
        let sinfs = Self.protection(of: entry).sinfs
        guard sinfs.count == 1, let sinf = sinfs.first else {
            throw refuse(.initOriginalFormat, "its sample entry holds \(sinfs.count) sinf boxes, not exactly one")
        }
        guard let frma = sinf.originalFormat, frma.dataFormat.description == kind.originalFormat else {
            throw refuse(.initOriginalFormat, "sinf/frma does not name '\(kind.originalFormat)'")
        }
        return sinf
    }

    /// #5: `schm` is `cbcs` version 0x00010000.
    func scheme(of sinf: ProtectionSchemeInfoBox) throws(FPSv2Error) {
        guard let schm = sinf.schemeType else { throw refuse(.initScheme, "sinf has no schm") }
        guard schm.schemeType == "cbcs" else { throw refuse(.initScheme, "schm scheme is '\(schm.schemeType)', not 'cbcs'") }
        guard schm.schemeVersion == 0x0001_0000 else { throw refuse(.initScheme, "schm version is not 0x00010000") }
    }

    /// #6: `tenc` protected, no per-sample IV, a 16-byte constant IV equal to `method.iv`.
    func trackEncryption(of sinf: ProtectionSchemeInfoBox, iv: Data) throws(FPSv2Error) -> TrackEncryptionBox {
        guard let tenc = sinf.schemeInformation?.trackEncryption else { throw refuse(.initTrackEncryption, "sinf/schi has no tenc") }
        guard tenc.defaultIsProtected == 1 else { throw refuse(.initTrackEncryption, "tenc default_isProtected is not 1") }
        guard tenc.defaultPerSampleIVSize == 0 else { throw refuse(.initTrackEncryption, "tenc default_Per_Sample_IV_Size is not 0") }
        guard let constantIV = tenc.defaultConstantIV, constantIV.count == 16 else {
            throw refuse(.initTrackEncryption, "tenc has no 16-byte constant IV")
        }
        guard constantIV.elementsEqual(iv) else { throw refuse(.initTrackEncryption, "tenc constant IV differs from method.iv (§5.4)") }
        return tenc
    }

    /// #7: video `tenc` version 1 with pattern 1:9; audio `tenc` version 0 with the pattern byte
    /// 0. Version 0 makes that byte reserved, which the box model skips, so it is read from the
    /// stored bytes.
    func pattern(of tenc: TrackEncryptionBox) throws(FPSv2Error) {
        switch kind {
        case .video:
            guard tenc.version == 1 else { throw refuse(.initPattern, "video tenc is not version 1") }
            guard tenc.defaultCryptByteBlock == 1, tenc.defaultSkipByteBlock == 9 else {
                throw refuse(.initPattern, "video tenc pattern is not crypt 1, skip 9")
            }
        case .audio:
            guard tenc.version == 0 else { throw refuse(.initPattern, "audio tenc is not version 0") }
            guard let byte = RawBoxPath.audioPatternByte(in: bytes) else {
                throw refuse(.initPattern, "audio tenc could not be located in the stored bytes")
            }
            guard byte == 0 else { throw refuse(.initPattern, "audio tenc pattern byte is not 0") }
        }
    }

    /// #8: video `avc1` with an `avcC`; audio AAC-LC (AudioSpecificConfig object type 2) with a
    /// `channelConfiguration` of 1 to 7. Returns the AudioSpecificConfig for audio.
    func codec(of entry: any MP4Box) throws(FPSv2Error) -> AudioSpecificConfig? {
        switch kind {
        case .video:
            guard let visual = entry as? VisualSampleEntry, visual.avcConfiguration != nil else {
                throw refuse(.initCodec, "the video sample entry has no avcC (not H.264)")
            }
            return nil
        case .audio:
            guard let audio = entry as? AudioSampleEntry, let esds = audio.elementaryStreamDescriptor else {
                throw refuse(.initCodec, "the audio sample entry has no esds")
            }
            guard let asc = esds.descriptor.decoderConfig.decoderSpecificInfo?.audioSpecificConfig,
                  let config = try? AudioSpecificConfig(bytes: asc) else {
                throw refuse(.initCodec, "the esds has no readable AudioSpecificConfig")
            }
            guard config.audioObjectType == 2 else { throw refuse(.initCodec, "the AudioSpecificConfig object type is not 2 (AAC-LC)") }
            guard (1...7).contains(config.channelConfiguration) else {
                throw refuse(.initCodec, "the AudioSpecificConfig channelConfiguration is not 1 to 7")
            }
            return config
        }
    }
}

/// Finds a box by its path in stored bytes, to read a byte the box model treats as reserved.
enum RawBoxPath {
    /// The byte after `tenc`'s version, flags and first reserved byte, at
    /// moov/trak/mdia/minf/stbl/stsd/enca/sinf/schi/tenc. Call only after the tree parsed.
    static func audioPatternByte(in bytes: [UInt8]) -> UInt8? {
        var range = 0..<bytes.count
        for type in ["moov", "trak", "mdia", "minf", "stbl"] {
            guard let child = firstChild(type, in: bytes, range: range) else { return nil }
            range = child
        }
        guard let stsd = firstChild("stsd", in: bytes, range: range), stsd.count >= 8 else { return nil }
        guard let enca = firstChild("enca", in: bytes, range: (stsd.lowerBound + 8)..<stsd.upperBound) else { return nil }
        // SampleEntry (8) + AudioSampleEntry (20), plus the QuickTime sound description extension.
        guard enca.count >= 28 else { return nil }
        let soundVersion = Int(bytes[enca.lowerBound + 8]) << 8 | Int(bytes[enca.lowerBound + 9])
        let fixed = 28 + (soundVersion == 1 ? 16 : soundVersion == 2 ? 36 : 0)
        guard enca.count >= fixed else { return nil }
        range = (enca.lowerBound + fixed)..<enca.upperBound
        for type in ["sinf", "schi", "tenc"] {
            guard let child = firstChild(type, in: bytes, range: range) else { return nil }
            range = child
        }
        guard range.count >= 6 else { return nil }
        return bytes[range.lowerBound + 5]
    }

    /// The payload range of the first child box of `type` directly inside `range`.
    static func firstChild(_ type: String, in bytes: [UInt8], range: Range<Int>) -> Range<Int>? {
        let wanted = Array(type.utf8)
        var offset = range.lowerBound
        while range.upperBound - offset >= 8 {
            var size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            var header = 8
            if size == 1 {
                guard range.upperBound - offset >= 16 else { return nil }
                var large = 0
                for i in 8..<16 {
                    guard large <= Int.max >> 8 else { return nil }
                    large = large << 8 | Int(bytes[offset + i])
                }
                size = large
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else { return nil }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual(wanted) {
                return (offset + header)..<(offset + size)
            }
            offset += size
        }
        return nil
    }
}
