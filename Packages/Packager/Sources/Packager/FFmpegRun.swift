import Foundation

/// One ffmpeg run of the packager (re-encoding sound, making ladder rungs): stdin closed, stdout
/// dropped, stderr kept for the failure message; `purpose` completes "ffmpeg failed to ...".
enum FFmpegRun {
    static func run(_ ffmpeg: String, _ arguments: [String], purpose: String) throws(PackagerError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do { try process.run() } catch {
            throw PackagerError(.externalTool, "ffmpeg ('\(ffmpeg)') could not be started to \(purpose)")
        }
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let detail = String(decoding: text.prefix(600), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw PackagerError(.externalTool, "ffmpeg failed to \(purpose) (exit \(process.terminationStatus))"
                                + (detail.isEmpty ? "" : ": \(detail)"))
        }
    }
}
