import MediaDRMMP4

/// An init segment rewritten to clear, with what its protected tracks need for decryption.
public struct ClearInitSegment: Sendable {
    /// The `ftyp` kept from the input, if it had one.
    public let fileType: FileTypeBox?
    /// The clear `moov`: sample entries in their original format, no `sinf`, no `pssh`.
    public let movie: MovieBox
    /// Each formerly protected track's protection, by `track_ID`.
    public let protections: [UInt32: TrackProtection]

    public init(fileType: FileTypeBox?, movie: MovieBox, protections: [UInt32: TrackProtection]) {
        self.fileType = fileType
        self.movie = movie
        self.protections = protections
    }

    /// The `track_ID` of every track, in `moov` order.
    public var trackIDs: [UInt32] { movie.tracks.compactMap { $0.trackHeader?.trackID } }

    /// The media timescale (`mdhd`) of `trackID`.
    public func timescale(of trackID: UInt32) -> UInt32? {
        track(trackID)?.media?.mediaHeader?.timescale
    }

    /// The handler type (`vide`, `soun`) of `trackID`.
    public func handlerType(of trackID: UInt32) -> FourCC? {
        track(trackID)?.media?.handler?.handlerType
    }

    /// The `trex` defaults of `trackID` (zeros when `mvex` has none for it).
    public func trackExtends(of trackID: UInt32) -> TrackExtendsBox {
        movie.movieExtends?.trackExtends.first(where: { $0.trackID == trackID }) ?? TrackExtendsBox(trackID: trackID)
    }

    func track(_ trackID: UInt32) -> TrackBox? {
        movie.tracks.first(where: { $0.trackHeader?.trackID == trackID })
    }

    /// `ftyp` (when kept) and `moov`, serialised.
    public func serializedBytes() throws(MediaError) -> [UInt8] {
        var boxes: [any MP4Box] = []
        if let fileType { boxes.append(fileType) }
        boxes.append(movie)
        do throws(MP4Error) {
            return try BoxParser.serialize(boxes)
        } catch {
            throw MediaError.mp4(error, "cannot write the clear init segment")
        }
    }
}
