import MediaDRMMP4

/// The live packager's input reader (`FragmentedMP4Reader`): a fragmented MP4 stream read
/// whole and again in chunks of 1 to 16 bytes (byte 0 picks the size; the stream is the rest).
/// Both must give the same samples and end the same way, so no decision depends on how the
/// bytes arrive; every sample must hold the bytes its size says. Small limits keep a hostile
/// size from being taken at face value.
enum FragmentedMP4Target {
    static let limits = FragmentedMP4Limits(maximumMovieBoxSize: 1 << 20, maximumFragmentBoxSize: 1 << 20,
                                            maximumMediaDataSize: 4 << 20, maximumSamplesPerFragment: 1 << 14)

    static func read(_ bytes: [UInt8], chunk: Int) -> (samples: [MP4FragmentSample], fragments: Int, error: MP4Error?) {
        var reader = FragmentedMP4Reader(stream: MP4MemoryStream(bytes, chunkSize: chunk), limits: limits)
        var samples: [MP4FragmentSample] = []
        var fragments = 0
        do {
            _ = try reader.readHeader()
            while let fragment = try reader.nextFragment() {
                samples += fragment.samples
                fragments += 1
            }
            return (samples, fragments, nil)
        } catch {
            return (samples, fragments, error)
        }
    }

    static let target = FuzzTarget("fmp4-stream", "FragmentedMP4Reader whole and in small chunks (must agree)") { input throws(FuzzViolation) in
        guard let first = input.first else { return .refused }
        let stream = Array(input.dropFirst())
        let whole = read(stream, chunk: Int.max)
        let chunked = read(stream, chunk: Int(first % 16) + 1)
        guard whole.samples == chunked.samples, whole.fragments == chunked.fragments,
              whole.error?.code == chunked.error?.code, whole.error?.reason == chunked.error?.reason else {
            throw FuzzViolation("fmp4-stream", "a stream read in chunks of \(Int(first % 16) + 1) bytes differs from the same stream read whole")
        }
        guard whole.error == nil, whole.fragments > 0 else { return .refused }
        return .accepted
    }
}
