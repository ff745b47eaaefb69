import Client
import Foundation
import MediaDRMToolSupport

/// `player library`: the titles of the offline library.
enum LibraryVerb {
    static let verb = ToolVerb(
        "library",
        summary: "List the offline library's titles: viewer, licence state and expiry.",
        discussion: """
            One line per title: its name, the viewer it was licensed to, the licence's state \
            (licensed, expired by the clock, released) and expiry, the first offline play, and the \
            package's size; then downloads that are under way (run player download again to \
            resume them). With --json, one JSON object on stdout. Opens no network connection.
            """,
        options: [OfflineOptions.library, .json],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let library = try OfflineOptions.openLibrary(arguments)
        let titles = try OfflineOptions.run { () throws(OfflineError) in try library.titles() }
        let pending = library.pendingDownloads()
        let now = try OfflineOptions.now()
        func state(_ title: OfflineTitle) -> String {
            if title.state == .released { return "released" }
            return title.expiresAt <= now ? "expired" : "licensed"
        }
        if arguments.flag("json") {
            let items: [[String: Any]] = titles.map { title in
                var item: [String: Any] = ["name": title.name, "viewer": title.viewer, "state": state(title),
                                           "expiresAt": OfflineOptions.date(title.expiresAt), "bytes": Int(title.packageBytes),
                                           "source": title.source]
                if let first = library.knownFirstPlay(of: title) { item["firstPlayedAt"] = OfflineOptions.date(first) }
                return item
            }
            console.print(ProgressJSON.encode(["library": library.path, "titles": items, "downloading": pending]))
            return
        }
        if titles.isEmpty && pending.isEmpty { console.print("no titles in \(library.path)") }
        for title in titles {
            var line = "\(title.name)  viewer \(title.viewer)  \(state(title))"
            if title.state == .licensed { line += " until \(OfflineOptions.date(title.expiresAt))" }
            if let first = library.knownFirstPlay(of: title) { line += "  first played \(OfflineOptions.date(first))" }
            line += "  \(DownloadReporter.size(title.packageBytes))"
            console.print(line)
        }
        for name in pending { console.print("\(name)  downloading (run player download again to resume)") }
    }
}
