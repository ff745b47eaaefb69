import Client
import Foundation
import MediaDRMToolSupport

/// `player delete NAME`: release the licence (best effort) and remove the title's files.
enum DeleteVerb {
    static let verb = ToolVerb(
        "delete",
        summary: "Remove a title from the offline library, giving its licence back first when a token is given.",
        discussion: """
            With --token the licence is released first (best effort: a key service that cannot be \
            reached or refuses does not stop the deletion, and the slot then frees when the \
            licence expires). The title's record, package and any partial download are removed.
            """,
        options: [
            .single("token", valueName: "token", help: "The viewer's bearer token, to release the licence first."),
            OfflineOptions.library, OfflineOptions.ca, OfflineOptions.pin, .quiet,
        ],
        arguments: [ToolArgument("name", help: "The title's name.")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let name = try arguments.requiredArgument("name")
        let library = try OfflineOptions.openLibrary(arguments)
        let title = try OfflineOptions.run { () throws(OfflineError) in try library.title(named: name) }
        if let title, title.state == .licensed {
            if arguments.value("token") != nil {
                let actions = OfflineLicenseActions(library: library, credential: try OfflineOptions.credential(arguments),
                                                    client: try OfflineOptions.client(arguments))
                do {
                    _ = try OfflineOptions.await { () async throws(OfflineError) in try await actions.release(name) }
                    console.progress("released the licence of '\(name)'")
                } catch let failure as ToolFailure {
                    console.warning("the licence was not given back (\(failure.message)); its device slot frees when it expires")
                }
            } else {
                console.warning("the licence was not given back (no --token); its device slot frees when it expires")
            }
        }
        try OfflineOptions.run { () throws(OfflineError) in try library.remove(name) }
        console.progress("deleted '\(name)'")
    }
}
