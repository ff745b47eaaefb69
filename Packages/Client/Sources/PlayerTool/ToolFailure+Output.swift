import MediaDRMEncoding
import MediaDRMToolSupport

extension ToolFailure {
    /// An output file that could not be written, in the words of every tool's outputs:
    /// "cannot write output 'PATH': REASON".
    init(output error: AtomicFileError) {
        self.init("cannot write output '\(error.path)': \(error.reason)")
    }
}
