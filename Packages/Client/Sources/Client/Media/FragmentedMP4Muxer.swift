import MediaDRMMP4

/// Combines single-track clear components (video, audio) into ONE fragmented MP4: one `moov`
/// with a `trak` and a `trex` per component (track IDs 1, 2, ... in the order given), then each
/// component's fragments renumbered to its track, sequence numbers increasing from 1, interleaved
/// by decode time. Written in order to a `MediaOutput` (stdout or a pipe to a player); memory
/// holds one segment per component.
public final class FragmentedMP4Muxer {
    public let components: [ClearInitSegment]
    /// Each component's `track_ID` in its own init segment.
    private let sourceTrackIDs: [UInt32]
    private var sequenceNumber: UInt32 = 0

    /// Each component's init segment must hold exactly one track.
    public init(components: [ClearInitSegment]) throws(MediaError) {
        guard !components.isEmpty else { throw MediaError(.missingBox, "nothing to mux") }
        guard components.count < 0xFFFF else { throw MediaError(.limitExceeded, "too many components") }
        var ids: [UInt32] = []
        for component in components {
            guard component.trackIDs.count == 1, let id = component.trackIDs.first else {
                throw MediaError(.malformed, "a component's init segment must hold exactly one track")
            }
            guard let scale = component.timescale(of: id), scale > 0 else {
                throw MediaError(.malformed, "track \(id) has no media timescale")
            }
            ids.append(id)
        }
        self.components = components
        sourceTrackIDs = ids
    }

    /// The output `track_ID` of component `index`.
    public func trackID(ofComponent index: Int) -> UInt32 { UInt32(index + 1) }

    /// `ftyp` and the combined `moov`.
    public func initializationSegment() throws(MediaError) -> [UInt8] {
        let first = components[0].movie.movieHeader ?? MovieHeaderBox()
        let movieScale = first.timescale > 0 ? first.timescale : 1000
        var header = first
        header.timescale = movieScale
        header.nextTrackID = UInt32(components.count + 1)
        var movieDuration: UInt64 = 0
        var tracks: [any MP4Box] = []
        var extends = MovieExtendsBox()
        for (index, component) in components.enumerated() {
            let sourceID = sourceTrackIDs[index]
            guard var track = component.track(sourceID) else { throw MediaError(.missingBox, "component without its track") }
            let sourceScale = component.movie.movieHeader?.timescale ?? movieScale
            guard var tkhd = track.trackHeader else { throw MediaError(.missingBox, "'trak' without 'tkhd'") }
            tkhd.trackID = trackID(ofComponent: index)
            tkhd.duration = Self.rescale(tkhd.duration, from: sourceScale, to: movieScale)
            movieDuration = max(movieDuration, tkhd.duration)
            track.trackHeader = tkhd
            if var edit = track.edit, var list = edit.editList {
                for i in list.entries.indices {
                    list.entries[i].segmentDuration = Self.rescale(list.entries[i].segmentDuration, from: sourceScale, to: movieScale)
                }
                edit.editList = list
                track.edit = edit
            }
            tracks.append(track)
            var trex = component.trackExtends(of: sourceID)
            trex.trackID = trackID(ofComponent: index)
            extends.children.append(trex)
        }
        header.duration = movieDuration
        var movie = MovieBox()
        movie.children.append(header)
        for track in tracks { movie.children.append(track) }
        movie.children.append(extends)
        let fileType = FileTypeBox(majorBrand: "isom", minorVersion: 0x200,
                                   compatibleBrands: ["isom", "iso6", "iso2", "avc1", "mp41"])
        do throws(MP4Error) {
            return try BoxParser.serialize([fileType, movie])
        } catch {
            throw MediaError.mp4(error, "cannot write the muxed init segment")
        }
    }

    /// `fragment` of component `index` as the next output fragment: its tracks renumbered and
    /// the next sequence number.
    public func fragmentBytes(_ fragment: MediaFragment, component index: Int) throws(MediaError) -> [UInt8] {
        guard components.indices.contains(index) else { throw MediaError(.malformed, "no component \(index)") }
        guard fragment.trackFragments.allSatisfy({ $0.trackID == sourceTrackIDs[index] }) else {
            throw MediaError(.malformed, "a fragment names a track its component does not have")
        }
        guard sequenceNumber < UInt32.max else { throw MediaError(.limitExceeded, "sequence numbers exhausted") }
        sequenceNumber += 1
        return try fragment.serializedBytes(sequenceNumber: sequenceNumber,
                                            trackIDs: [sourceTrackIDs[index]: trackID(ofComponent: index)])
    }

    /// Writes the init segment, then every component's fragments interleaved by decode time,
    /// pulling one segment per component when its previous one is used up.
    public func stream(_ sources: [any MediaFragmentSource], to output: any MediaOutput) throws(MediaError) {
        guard sources.count == components.count else {
            throw MediaError(.malformed, "\(sources.count) sources for \(components.count) components")
        }
        try output.write(initializationSegment())
        var pending: [[MediaFragment]] = Array(repeating: [], count: sources.count)
        var finished = Array(repeating: false, count: sources.count)
        var previousTimes: [UInt64?] = Array(repeating: nil, count: sources.count)
        while true {
            for index in sources.indices where pending[index].isEmpty && !finished[index] {
                // A segment may hold no fragment of use; keep pulling until one does or the end.
                while pending[index].isEmpty, !finished[index] {
                    if let next = try sources[index].nextFragments() { pending[index] = next } else { finished[index] = true }
                }
            }
            var chosen: Int?
            for index in sources.indices {
                guard let head = pending[index].first else { continue }
                if let best = chosen, let bestHead = pending[best].first,
                   !isEarlier(head, of: index, than: bestHead, of: best) { continue }
                chosen = index
            }
            guard let index = chosen else { break }
            let fragment = pending[index].removeFirst()
            let time = decodeTime(fragment)
            if let previous = previousTimes[index], time < previous {
                throw MediaError(.malformed, "component \(index) goes back in decode time")
            }
            previousTimes[index] = time
            try output.write(fragmentBytes(fragment, component: index))
        }
    }

    private func decodeTime(_ fragment: MediaFragment) -> UInt64 {
        fragment.trackFragments.first?.baseMediaDecodeTime ?? 0
    }

    /// Compares decode times across timescales exactly (128-bit cross products).
    private func isEarlier(_ a: MediaFragment, of ia: Int, than b: MediaFragment, of ib: Int) -> Bool {
        let scaleA = UInt64(components[ia].timescale(of: sourceTrackIDs[ia]) ?? 1)
        let scaleB = UInt64(components[ib].timescale(of: sourceTrackIDs[ib]) ?? 1)
        let left = decodeTime(a).multipliedFullWidth(by: scaleB)
        let right = decodeTime(b).multipliedFullWidth(by: scaleA)
        if left.high != right.high { return left.high < right.high }
        if left.low != right.low { return left.low < right.low }
        return ia < ib
    }

    static func rescale(_ value: UInt64, from source: UInt32, to target: UInt32) -> UInt64 {
        guard source != target, source > 0 else { return value }
        let product = value.multipliedFullWidth(by: UInt64(target))
        guard product.high < UInt64(source) else { return UInt64.max }
        return UInt64(source).dividingFullWidth(product).quotient
    }
}
