import MediaDRMMP4

/// What a fragmented MP4 muxed from one track per component must look like: an `ftyp`, one
/// `moov` with a `trak` and a `trex` per component (ids 1...n, next id n+1), then `moof`+`mdat`
/// pairs, one track each, whose sequence numbers increase by one from 1 and whose decode times
/// (in seconds) never go back across tracks, every track among them.
enum MuxedStructure {
    static func problems(_ bytes: [UInt8], trackCount: Int) throws -> [String] {
        var problems: [String] = []
        let boxes = try BoxParser.parse(bytes)
        let ids = (1...trackCount).map { UInt32($0) }
        if boxes.first?.boxType != "ftyp" { problems.append("the first box is \(boxes.first?.boxType ?? "missing"), not ftyp") }
        guard let movie = boxes.compactMap({ $0 as? MovieBox }).first else { return problems + ["no moov"] }
        let trackIDs = movie.tracks.compactMap { $0.trackHeader?.trackID }
        if trackIDs != ids { problems.append("trak ids \(trackIDs)") }
        let extendsIDs = movie.movieExtends?.trackExtends.map(\.trackID)
        if extendsIDs != ids { problems.append("trex ids \(String(describing: extendsIDs))") }
        if movie.movieHeader?.nextTrackID != UInt32(trackCount + 1) {
            problems.append("next track id \(String(describing: movie.movieHeader?.nextTrackID))")
        }
        let scales = movie.tracks.map { UInt64($0.media?.mediaHeader?.timescale ?? 1) }
        let fragments = boxes.compactMap { $0 as? MovieFragmentBox }
        let mdats = boxes.filter { $0.boxType == "mdat" }.count
        if fragments.count != mdats { problems.append("\(fragments.count) moof for \(mdats) mdat") }
        var expected: UInt32 = 1
        var lastTime = 0.0
        var seen = Set<UInt32>()
        for moof in fragments {
            let sequence = moof.movieFragmentHeader?.sequenceNumber
            if sequence != expected { problems.append("moof \(expected) has sequence number \(String(describing: sequence))") }
            expected += 1
            if moof.trackFragments.count != 1 { problems.append("moof \(expected - 1) has \(moof.trackFragments.count) traf") }
            guard let id = moof.trackFragments.first?.trackFragmentHeader?.trackID, id >= 1, Int(id) <= scales.count else {
                problems.append("moof \(expected - 1) names no known track")
                continue
            }
            seen.insert(id)
            let decodeTime = moof.trackFragments.first?.decodeTime?.baseMediaDecodeTime ?? 0
            let time = Double(decodeTime) / Double(scales[Int(id) - 1])
            if time < lastTime { problems.append("moof \(expected - 1) goes back in time: \(time) s after \(lastTime) s") }
            lastTime = time
        }
        if seen != Set(ids) { problems.append("fragments of tracks \(seen.sorted())") }
        return problems
    }
}
