import MediaDRMToolSupport

/// `player`: admit, acquire keys, decrypt and present fps-v2 and tdf-hls content. Each verb
/// lives in its own file and declares a `static let verb`; add it to `verbs` here.
enum PlayerCommand {
    static let version = "0.1.0"

    static let tool = Tool(
        name: "player",
        version: version,
        summary: "Admit, decrypt and present fps-v2 and tdf-hls media; download fps-v2 titles for offline play.",
        verbs: [PlayVerb.verb, AdmitVerb.verb, DecryptVerb.verb, DownloadVerb.verb, LibraryVerb.verb,
                LicenseVerb.verb, DeleteVerb.verb, RefusalsVerb.verb])
}
