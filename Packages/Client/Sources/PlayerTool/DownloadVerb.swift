import Client
import Foundation
import MediaDRMToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `player download`: an fps-v2 package into the offline library, licensed to its device key.
enum DownloadVerb {
    static let verb = ToolVerb(
        "download",
        summary: "Download an fps-v2 package for offline play and get a licence bound to this library's device key.",
        discussion: """
            SOURCE is the http(s) URL of an fps-v2 package (tdf-hls streams cannot be downloaded \
            yet). The package passes every reader admission check, with --kas as the only accepted \
            key service, before anything is kept; it is downloaded with Range requests into the \
            library (an interrupted download resumes from where it stopped, here or when the same \
            command is run again, with If-Range on the entity tag); the complete package is \
            admitted again and every entry's CRC checked; only then is a licence requested for the \
            library's device key, and verified. The title's name defaults to the URL's last path \
            segment without its extension. Progress: a bar on a terminal, else one JSON object per \
            line on stderr with --json (events admitted, request, progress, interrupted, restarted, \
            verified, licensed, then result). The token is sent only as the bearer credential and \
            never stored. See docs/offline.md.
            """,
        options: [
            .single("kas", valueName: "url", help: "The key access server (the accepted key service URL).", required: true),
            .single("token", valueName: "token", help: "The viewer's bearer token.", required: true),
            .single("name", valueName: "name", help: "The title's name in the library."),
            .single("device-name", valueName: "text", help: "A label for this device in the key service's records."),
            OfflineOptions.library, OfflineOptions.ca, OfflineOptions.pin,
            .flag("json", help: "Progress and the result as one JSON object per line on stderr."),
            .quiet,
        ],
        arguments: [ToolArgument("source", help: "The package's http(s) URL.")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let source = try arguments.requiredArgument("source")
        let kas = try arguments.requiredValue("kas")
        let name = arguments.value("name") ?? OfflineDownload.defaultName(for: source)
        try OfflineOptions.run { () throws(OfflineError) in
            try OfflineDownload.validateSource(source)
            try OfflineLibrary.validate(name: name)
        }
        let credential = try OfflineOptions.credential(arguments)
        let client = try OfflineOptions.client(arguments)
        let library = try OfflineOptions.openLibrary(arguments)
        let now = try OfflineOptions.now()
        let json = arguments.flag("json")
        let reporter = DownloadReporter(console: console, json: json, bar: !json && isatty(STDERR_FILENO) == 1)
        let download = OfflineDownload(library: library, name: name, sourceURL: source, keyServiceURL: kas,
                                       credential: credential, client: client, deviceName: arguments.value("device-name"),
                                       events: { reporter.report($0) })
        let title: OfflineTitle
        do {
            title = try OfflineOptions.await { () async throws(OfflineError) in try await download.run(now: now) }
        } catch let failure as ToolFailure {
            reporter.finishBar()
            if json { console.printError(ProgressJSON.encode(["event": "result", "ok": false, "reason": failure.message])) }
            throw failure
        }
        reporter.finishBar()
        if json {
            console.printError(ProgressJSON.encode(["event": "result", "ok": true, "title": title.name,
                                                   "expiresAt": OfflineOptions.date(title.expiresAt)]))
        } else {
            console.progress("downloaded '\(title.name)' (\(title.packageBytes) bytes) for \(title.viewer); "
                             + "licence valid until \(OfflineOptions.date(title.expiresAt))")
        }
    }
}

/// Download progress: a bar redrawn in place on a terminal (bytes, rate, time left), JSON lines
/// with --json, otherwise the main steps only.
final class DownloadReporter: @unchecked Sendable {
    private let console: Console
    private let json: Bool
    private let bar: Bool
    private let lock = NSLock()
    private var started: Date?
    private var startBytes: UInt64 = 0
    private var drawn = false

    init(console: Console, json: Bool, bar: Bool) {
        self.console = console
        self.json = json
        self.bar = bar
    }

    func report(_ event: OfflineDownload.Event) {
        lock.withLock {
            switch event {
            case .admitted(let checks, let components, let segments):
                emit(["event": "admitted", "checks": checks, "components": components, "segments": segments],
                     "admitted: fps-v2, \(checks) checks, components \(components.joined(separator: ", ")), \(segments) segments each")
            case .transfer(.requesting(let offset, let resuming)):
                if started == nil { started = Date(); startBytes = offset }
                emit(["event": "request", "offset": Int(offset), "resuming": resuming],
                     resuming ? "resuming at byte \(offset)" : nil)
            case .transfer(.progress(let bytes, let total)):
                if json {
                    var object: [String: Any] = ["event": "progress", "bytes": Int(bytes)]
                    if let total { object["total"] = Int(total) }
                    console.printError(ProgressJSON.encode(object))
                } else if bar {
                    draw(bytes: bytes, total: total)
                }
            case .transfer(.interrupted(let bytes)):
                emit(["event": "interrupted", "bytes": Int(bytes)], "the connection dropped at byte \(bytes): resuming")
            case .transfer(.restarted):
                emit(["event": "restarted"], "the package changed on the origin: starting over")
            case .verified(let bytes):
                emit(["event": "verified", "bytes": Int(bytes)], "verified: \(bytes) bytes, every entry's CRC")
            case .licensed(let expiresAt):
                emit(["event": "licensed", "expiresAt": OfflineOptions.date(expiresAt)],
                     "licensed until \(OfflineOptions.date(expiresAt))")
            }
        }
    }

    func finishBar() {
        lock.withLock {
            if drawn { console.printError("") }
            drawn = false
        }
    }

    private func emit(_ object: [String: Any], _ line: String?) {
        if json {
            console.printError(ProgressJSON.encode(object))
        } else if let line {
            if drawn { console.printError(""); drawn = false }
            console.progress(line)
        }
    }

    private func draw(bytes: UInt64, total: UInt64?) {
        guard !console.isQuiet else { return }
        let elapsed = max(0.001, Date().timeIntervalSince(started ?? Date()))
        let rate = Double(bytes - min(bytes, startBytes)) / elapsed
        var line = ""
        if let total, total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            let filled = Int(fraction * 30)
            line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled) + "] "
            line += "\(Int(fraction * 100))% \(Self.size(bytes)) of \(Self.size(total))"
            if rate > 0 {
                let left = Int(Double(total - min(total, bytes)) / rate)
                line += ", \(Self.size(UInt64(rate)))/s, ETA \(left / 60):" + String(format: "%02d", left % 60)
            }
        } else {
            line = "\(Self.size(bytes)), \(Self.size(UInt64(rate)))/s"
        }
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
        drawn = true
    }

    static func size(_ bytes: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
