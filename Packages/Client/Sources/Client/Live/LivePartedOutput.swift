/// An output that can hold a live stream across a change of init segment (docs/live.md, "The
/// player"): an fMP4 has one `moov`, so when a restarted encoder describes its tracks anew the
/// playback ends the file being written and continues in a new one (`player play -o DIR/`
/// writes `part-0.mp4`, `part-1.mp4`, …). A single file or a pipe cannot; there the playback ends
/// at the change with an error naming it.
public protocol LivePartedOutput: MediaOutput {
    /// Whether `startPart` is possible (a directory output, not a file or a pipe).
    var writesParts: Bool { get }
    /// Ends the current part, complete, and sends the writes that follow to part `number`.
    func startPart(_ number: Int) throws(MediaError)
}
