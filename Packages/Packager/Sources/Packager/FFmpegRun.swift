import Foundation
import MediaDRMEncoding

/// One ffmpeg run of the packager (re-encoding sound, making ladder rungs), through
/// `ExternalProgram`; `purpose` completes "ffmpeg failed to ...".
enum FFmpegRun {
    static func run(_ ffmpeg: String, _ arguments: [String], purpose: String) throws(PackagerError) {
        if let failure = ExternalProgram.run(ffmpeg, arguments, name: "ffmpeg", purpose: purpose) {
            throw PackagerError(.externalTool, failure)
        }
    }
}
