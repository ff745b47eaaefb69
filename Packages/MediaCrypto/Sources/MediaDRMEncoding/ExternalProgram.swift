import Foundation

/// One run of an external program, the packager's ffmpeg (ladder rungs, re-encoded sound) and
/// the KAS's (poster frames): stdin closed, stdout dropped, stderr kept for the failure message.
/// Here because this is the lowest module both already import, as `AtomicFileWriter` is.
public enum ExternalProgram {
    /// Runs `executable`; nil when it exits 0, else what went wrong, in the words "`name`
    /// ('path') could not be started to `purpose`" or "`name` failed to `purpose` (exit N):
    /// <its first 600 bytes of stderr>".
    public static func run(_ executable: String, _ arguments: [String], name: String, purpose: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do { try process.run() } catch {
            return "\(name) ('\(executable)') could not be started to \(purpose)"
        }
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let detail = String(decoding: text.prefix(600), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(name) failed to \(purpose) (exit \(process.terminationStatus))" + (detail.isEmpty ? "" : ": \(detail)")
        }
        return nil
    }
}
