import Client
import Foundation
import MediaDRMToolSupport

/// `player license renew|release NAME`: the online actions on a downloaded title's licence.
enum LicenseVerb {
    static let verb = ToolVerb(
        "license",
        summary: "Renew a downloaded title's licence, or release it (give it back and free the device slot).",
        discussion: """
            renew asks the title's key service for a new licence with a later expiry (never past a \
            rental's end), checks its licence-signing keys against the pinned ones again (a changed \
            set is pinned only over https) and re-creates any sealed library record that was lost; \
            release gives the licence back, which frees this device's slot, and drops the wrapped \
            keys from the library (the package stays until player delete). Both report the first offline play, if any. The \
            token is sent only as the bearer credential and never stored.
            """,
        options: [
            .single("token", valueName: "token", help: "The viewer's bearer token.", required: true),
            OfflineOptions.library, OfflineOptions.ca, OfflineOptions.pin, .quiet,
        ],
        arguments: [ToolArgument("action", help: "renew or release."), ToolArgument("name", help: "The title's name.")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let action = try arguments.requiredArgument("action")
        let name = try arguments.requiredArgument("name")
        guard action == "renew" || action == "release" else {
            throw UsageError("unknown licence action '\(action)': expected renew or release")
        }
        let credential = try OfflineOptions.credential(arguments)
        let client = try OfflineOptions.client(arguments)
        let library = try OfflineOptions.openLibrary(arguments)
        let actions = OfflineLicenseActions(library: library, credential: credential, client: client)
        if action == "renew" {
            let now = try OfflineOptions.now()
            let title = try OfflineOptions.await { () async throws(OfflineError) in try await actions.renew(name, now: now) }
            console.progress("renewed '\(name)': licence valid until \(OfflineOptions.date(title.expiresAt))")
        } else {
            _ = try OfflineOptions.await { () async throws(OfflineError) in try await actions.release(name) }
            console.progress("released the licence of '\(name)': its keys are gone from the library; player delete removes the package")
        }
    }
}
