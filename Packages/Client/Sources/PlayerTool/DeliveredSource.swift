import Client
import Dispatch

/// `player play`'s SOURCE rule carried out (docs/delivery.md "The player's rule"): a package or
/// stream is played as it is; a delivery description or `--asset` first starts a playback at
/// `--kas`, whose media URL (renewed as it expires) becomes the source.
enum DeliveredSource {
    /// Blocks while the playback API is asked; refusals keep their reason code.
    static func resolve(_ target: PlaybackTarget,
                        configuration: inout PlaybackConfiguration) throws(PlaybackError) -> (PlaybackSource, DeliveredPlayback?) {
        if case .source(let source) = target { return (source, nil) }
        let api = PlaybackAPI(keyServiceURL: configuration.keyServiceURL, client: configuration.client,
                              credential: configuration.credential)
        let box = StartBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(PlaybackError) {
                box.result = .success(try await DeliveredPlayback.start(target, api: api, clientPlatform: "linux"))
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        guard let result = box.result else { throw PlaybackError(.stopped, "the playback was not started") }
        let delivered = try result.get()
        do {
            try delivered.configure(&configuration)
        } catch {
            let released = DispatchSemaphore(value: 0)
            Task {
                await delivered.release()
                released.signal()
            }
            released.wait()
            throw error
        }
        return (delivered.source, delivered)
    }

    /// `scheme://host:port` of a URL: what progress may say of a signed media URL.
    static func origin(_ url: String) -> String {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return url.prefix(while: { $0 != ":" }) + "://" + authority
    }
}

final class StartBox: @unchecked Sendable {
    var result: Result<DeliveredPlayback, PlaybackError>?
}

extension PlaybackSource {
    var isTDFHLS: Bool {
        switch self {
        case .tdfHLSMasterURL, .tdfHLSMasterFile: true
        default: false
        }
    }
}
