import MediaDRMTDF
import MediaDRMToolSupport

extension ToolFailure {
    /// A TDF module failure as a tool message that names the file; the module's reasons are
    /// fixed sentences that never carry keys or plaintext.
    static func tdf(_ error: TDFError, _ context: String) -> ToolFailure {
        ToolFailure("\(context): \(error.reason)")
    }
}
