import Client
import Foundation

/// Playback through the Client library (`PlaybackSession`) and through the `player` tool, both
/// trusting the KAS's test CA.
enum ClientPlayer {
    struct Outcome {
        var media: Data
        var events: [PlaybackEvent]
        var error: PlaybackError?
    }

    final class EventLog: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [PlaybackEvent] = []
        func append(_ event: PlaybackEvent) { lock.withLock { items.append(event) } }
        var events: [PlaybackEvent] { lock.withLock { items } }
    }

    static func configuration(kas: KASFixture, token: String) throws -> PlaybackConfiguration {
        var http = HTTPClientConfiguration()
        http.trustedCertificatesPEM = FileManager.default.contents(atPath: kas.caFile)
        return PlaybackConfiguration(keyServiceURL: kas.publicURL, credential: try Credential(bearerToken: token),
                                     client: try HTTPClient(configuration: http))
    }

    /// The library: `PlaybackSession.play(to:)` into memory.
    static func play(_ url: String, kas: KASFixture, token: String) async throws -> Outcome {
        let log = EventLog()
        let session = PlaybackSession(source: try PlaybackSource(argument: url),
                                      configuration: try configuration(kas: kas, token: token),
                                      progress: { log.append($0) })
        let output = MemoryOutput()
        do {
            try await session.play(to: output)
            return Outcome(media: Data(output.bytes), events: log.events, error: nil)
        } catch {
            return Outcome(media: Data(output.bytes), events: log.events, error: error)
        }
    }

    /// The tool: `player play URL --kas --ca --token --output FILE`.
    static func playTool(_ url: String, kas: KASFixture, token: String) throws -> (result: ProcessResult, media: Data?) {
        let output = Scratch.directory("player") + "/clear.mp4"
        let result = try run(try Tools.player, ["play", url, "--kas", kas.publicURL, "--ca", kas.caFile,
                                                "--token", token, "--output", output])
        return (result, FileManager.default.contents(atPath: output))
    }
}
