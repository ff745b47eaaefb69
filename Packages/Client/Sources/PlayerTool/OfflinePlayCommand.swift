import Client
import Foundation
import MediaDRMToolSupport

/// `player play --title NAME`: a downloaded title from the offline library, with no network
/// (`OfflinePlayback`, docs/offline.md). The destination rules are those of online play: stdout
/// (never a terminal), `--output` (atomic), or `--play`.
enum OfflinePlayCommand {
    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        guard let name = arguments.value("title") else { throw UsageError("missing --title") }
        for online in ["kas", "token", "ca", "pin"] where arguments.value(online) != nil {
            throw UsageError("--\(online) is for online play: --title plays offline")
        }
        if arguments.argument("source") != nil { throw UsageError("give either a source or --title, not both") }
        if arguments.flag("fairplay") { throw UsageError("--fairplay is for online play") }
        let outputPath = arguments.value("output")
        let present = arguments.flag("play")
        if present, outputPath != nil { throw UsageError("--play and --output cannot be used together") }
        let library = try OfflineOptions.openLibrary(arguments)
        let now = try OfflineOptions.now()

        let presenter: PlayerProcess? = present ? try PlayerProcess.launch() : nil
        let destination: ClearMediaDestination? = present ? nil : try ClearMediaDestination(path: outputPath)
        guard let output: any MediaOutput = presenter?.output ?? destination else { throw ToolFailure("no destination") }
        let json = arguments.flag("json")
        let progress: @Sendable (PlaybackEvent) -> Void = { event in
            if json { console.printError(ProgressJSON.line(event)) } else { console.progress(PlayVerb.describe(event)) }
        }
        let playback = OfflinePlayback(library: library, titleName: name, progress: progress)
        let sendableOutput = UncheckedOutput(output)
        do {
            try OfflineOptions.await { () async throws(OfflineError) in
                try await playback.play(to: sendableOutput.value, now: now)
                if let presenter { await presenter.waitForExit() }
            }
        } catch let failure as ToolFailure {
            destination?.abandon()
            presenter?.terminate()
            if json { console.printError(ProgressJSON.encode(["event": "result", "ok": false, "reason": failure.message])) }
            throw failure
        }
        if let presenter, let failure = presenter.failure() {
            presenter.terminate()
            throw ToolFailure(failure)
        }
        try destination?.finish()
        if json {
            console.printError(ProgressJSON.result(nil, bytesWritten: destination?.bytesWritten))
        } else if let destination, let path = destination.path {
            console.progress("wrote \(destination.bytesWritten) bytes of clear media to '\(path)'")
        }
    }
}
