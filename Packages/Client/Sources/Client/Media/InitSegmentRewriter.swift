import MediaDRMMP4

/// Turns an encrypted init segment into a clear one, as Bento4's mp4decrypt does: each `encv` or
/// `enca` sample entry takes back the format its `frma` names and loses its `sinf`; `pssh` boxes
/// and `seig` sample groups go. What each `tenc` said is returned for decrypting the fragments.
public enum InitSegmentRewriter {
    /// Larger init segments are refused before parsing (fps-v2 bounds them at 1 MiB).
    public static let maximumSize = 16 << 20

    public static func rewrite(_ bytes: [UInt8]) throws(MediaError) -> ClearInitSegment {
        guard bytes.count <= maximumSize else {
            throw MediaError(.limitExceeded, "init segment larger than \(maximumSize) bytes")
        }
        let boxes: [any MP4Box]
        do throws(MP4Error) {
            boxes = try BoxParser.parse(bytes)
        } catch {
            throw MediaError.mp4(error, "init segment")
        }
        let movies = boxes.compactMap { $0 as? MovieBox }
        guard movies.count == 1, var movie = movies.first else {
            throw MediaError(.missingBox, "init segment must hold exactly one 'moov'")
        }
        guard !boxes.contains(where: { $0.boxType == "moof" || $0.boxType == "mdat" }) else {
            throw MediaError(.malformed, "init segment holds media ('moof' or 'mdat')")
        }
        let fileType = boxes.compactMap { $0 as? FileTypeBox }.first(where: { $0.type == "ftyp" })

        var protections: [UInt32: TrackProtection] = [:]
        var seen = Set<UInt32>()
        var children = BoxList()
        for box in movie.children.boxes {
            if box is ProtectionSystemSpecificHeaderBox { continue }
            guard var track = box as? TrackBox else {
                children.append(box)
                continue
            }
            guard let trackID = track.trackHeader?.trackID, trackID != 0 else {
                throw MediaError(.malformed, "'tkhd'.track_ID must not be 0")
            }
            guard seen.insert(trackID).inserted else {
                throw MediaError(.malformed, "two tracks share a track_ID")
            }
            if let protection = try clearTrack(&track, trackID: trackID) {
                protections[trackID] = protection
            }
            children.append(track)
        }
        guard !seen.isEmpty else { throw MediaError(.missingBox, "'moov' holds no 'trak'") }
        movie.children = children
        return ClearInitSegment(fileType: fileType, movie: movie, protections: protections)
    }

    /// Clears the sample entries of `track` in place; the protection of its entries, or nil
    /// for a clear track. Entries of one track must share one `tenc`.
    private static func clearTrack(_ track: inout TrackBox, trackID: UInt32) throws(MediaError) -> TrackProtection? {
        guard var media = track.media, var information = media.mediaInformation,
              var table = information.sampleTable, var description = table.sampleDescription else {
            throw MediaError(.missingBox, "track \(trackID) has no 'stsd'")
        }
        var protection: TrackProtection?
        var entries = BoxList()
        for entry in description.children.boxes {
            var sinf: ProtectionSchemeInfoBox?
            var cleared: any MP4Box = entry
            if var visual = entry as? VisualSampleEntry, visual.format == "encv" {
                sinf = visual.protectionSchemeInfo
                visual.protectionSchemeInfo = nil
                visual.format = try originalFormat(sinf, trackID: trackID)
                cleared = visual
            } else if var audio = entry as? AudioSampleEntry, audio.format == "enca" {
                sinf = audio.protectionSchemeInfo
                audio.protectionSchemeInfo = nil
                audio.format = try originalFormat(sinf, trackID: trackID)
                cleared = audio
            } else if ["enct", "encs", "encm", "encf", "encp", "enc3"].contains(entry.boxType) {
                throw MediaError(.unsupported, "track \(trackID): protected '\(entry.boxType)' entries are not supported")
            }
            if let sinf {
                let found = try trackProtection(sinf, trackID: trackID)
                if let protection, protection.trackEncryption != found.trackEncryption {
                    throw MediaError(.unsupported, "track \(trackID): sample entries with different 'tenc' boxes")
                }
                protection = found
            }
            entries.append(cleared)
        }
        description.children = entries
        table.sampleDescription = description
        table.children.boxes.removeAll(where: SampleGroupBoxes.isEncryptionGroup)
        information.sampleTable = table
        media.mediaInformation = information
        track.media = media
        return protection
    }

    private static func originalFormat(_ sinf: ProtectionSchemeInfoBox?, trackID: UInt32) throws(MediaError) -> FourCC {
        guard let format = sinf?.originalFormat?.dataFormat else {
            throw MediaError(.missingBox, "track \(trackID): protected sample entry without 'sinf'/'frma'")
        }
        guard format != "encv", format != "enca" else {
            throw MediaError(.malformed, "track \(trackID): 'frma' names a protected format")
        }
        return format
    }

    private static func trackProtection(_ sinf: ProtectionSchemeInfoBox, trackID: UInt32) throws(MediaError) -> TrackProtection {
        guard let scheme = sinf.schemeType else {
            throw MediaError(.missingBox, "track \(trackID): 'sinf' without 'schm'")
        }
        guard scheme.schemeType == "cbcs" else {
            throw MediaError(.unsupported, "track \(trackID): scheme '\(scheme.schemeType)' is not supported; only 'cbcs'")
        }
        guard let tenc = sinf.schemeInformation?.trackEncryption else {
            throw MediaError(.missingBox, "track \(trackID): 'schi' without 'tenc'")
        }
        guard let format = sinf.originalFormat?.dataFormat else {
            throw MediaError(.missingBox, "track \(trackID): 'sinf' without 'frma'")
        }
        if tenc.defaultIsProtected == 1 {
            guard tenc.defaultPerSampleIVSize == 0 || tenc.defaultPerSampleIVSize == 16 else {
                throw MediaError(.unsupported, "track \(trackID): 'cbcs' with \(tenc.defaultPerSampleIVSize)-byte IVs")
            }
            if tenc.defaultPerSampleIVSize == 0, tenc.defaultConstantIV?.count != 16 {
                throw MediaError(.unsupported, "track \(trackID): 'cbcs' needs a 16-byte constant IV")
            }
        }
        return TrackProtection(trackID: trackID, originalFormat: format, scheme: scheme.schemeType, trackEncryption: tenc)
    }
}
