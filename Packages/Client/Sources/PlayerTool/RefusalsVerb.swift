import Client
import Foundation
import MediaDRMToolSupport

/// `player refusals`: the refusal codes and their words as JSON (`PlaybackRefusalTable`), the
/// web player's `refusals.json`.
enum RefusalsVerb {
    static let verb = ToolVerb(
        "refusals",
        summary: "Print every refusal code with the sentences a viewer is shown, as JSON.",
        discussion: """
            The output is the web player's refusals.json: regenerate it after changing a \
            refusal's words with `player refusals > Packages/WebPlayer/player/refusals.json`.
            """,
        options: [],
        arguments: [],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        console.write(PlaybackRefusalTable.json())
    }
}
