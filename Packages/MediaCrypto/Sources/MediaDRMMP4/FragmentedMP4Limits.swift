/// The bounds a fragmented-MP4 stream reader holds its input to. A stream cannot be measured
/// before it is read, so every box is checked against these before its bytes are allocated: a
/// hostile or broken encoder cannot make the reader buffer the stream.
public struct FragmentedMP4Limits: Sendable, Equatable {
    /// The largest `ftyp` or `moov` (ffmpeg's are about 1 KB).
    public var maximumMovieBoxSize: UInt64
    /// The largest `moof` (a fragment of one GOP is a few KB).
    public var maximumFragmentBoxSize: UInt64
    /// The largest `mdat` payload, the one part of the stream held whole (one fragment's media).
    public var maximumMediaDataSize: UInt64
    /// The most samples one fragment may describe.
    public var maximumSamplesPerFragment: Int

    public init(maximumMovieBoxSize: UInt64 = 16 << 20, maximumFragmentBoxSize: UInt64 = 16 << 20,
                maximumMediaDataSize: UInt64 = 256 << 20, maximumSamplesPerFragment: Int = 1 << 18) {
        self.maximumMovieBoxSize = maximumMovieBoxSize
        self.maximumFragmentBoxSize = maximumFragmentBoxSize
        self.maximumMediaDataSize = maximumMediaDataSize
        self.maximumSamplesPerFragment = maximumSamplesPerFragment
    }
}
