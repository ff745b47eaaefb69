import MediaDRMMP4

/// A progressive MP4 or MOV opened for packaging: its `moov` parsed, every track's tables
/// expanded, and the file kept open for reading samples on demand.
public struct SourceMovie: Sendable {
    public let source: any MP4ByteSource
    public let movieTimescale: UInt32
    public let tracks: [SourceTrack]

    /// The largest `moov` read into memory.
    public static let maximumMovieBoxSize: UInt64 = 256 << 20

    public init(path: String) throws(PackagerError) {
        let file: MP4FileSource
        do { file = try MP4FileSource(path: path) } catch {
            throw PackagerError(.io, "cannot open the input file '\(path)'")
        }
        try self.init(source: file)
    }

    public init(source: any MP4ByteSource) throws(PackagerError) {
        self.source = source
        var iterator = BoxIterator(source: source)
        let headers: [BoxHeader]
        do { headers = try iterator.all() } catch { throw Self.translate(error) }
        let moovs = headers.filter { $0.type == "moov" }
        guard moovs.count <= 1 else { throw PackagerError(.malformedInput, "the input has more than one 'moov'") }
        let moovHeader = moovs.first
        let sawFragments = headers.contains { $0.type == "moof" }
        guard let moovHeader else {
            throw PackagerError(.malformedInput, "the input has no 'moov' box (not an MP4/MOV file, or truncated)")
        }
        let moov: MovieBox
        do {
            moov = try iterator.readBox(moovHeader, as: MovieBox.self, maximumSize: Self.maximumMovieBoxSize)
        } catch {
            throw Self.translate(error)
        }
        guard let mvhd = moov.movieHeader else { throw PackagerError(.malformedInput, "'moov' has no 'mvhd'") }
        if sawFragments || moov.movieExtends != nil {
            throw PackagerError(.unsupportedInput, "fragmented MP4 input is not supported; give a progressive MP4/MOV")
        }
        movieTimescale = mvhd.timescale
        var tracks: [SourceTrack] = []
        for trak in moov.tracks {
            tracks.append(try SourceTrack(track: trak, movieTimescale: mvhd.timescale, fileSize: source.size))
        }
        self.tracks = tracks
    }

    static func translate(_ error: MP4Error) -> PackagerError {
        switch error.code {
        case .truncated:
            PackagerError(.truncatedInput, "the input ends inside a box (is the file truncated?): \(error.reason)")
        case .io:
            PackagerError(.io, "reading the input failed")
        default:
            PackagerError(.malformedInput, "the input is not valid MP4: \(error.reason)")
        }
    }

    /// Reads the bytes of sample `index` of `track` (one `pread`).
    public func readSample(_ track: SourceTrack, _ index: Int) throws(PackagerError) -> [UInt8] {
        do {
            return try source.read(offset: track.samples.offsets[index], count: Int(track.samples.sizes[index]))
        } catch {
            throw PackagerError(.truncatedInput, "\(track.name): sample \(index + 1) could not be read (is the file truncated?)")
        }
    }
}
