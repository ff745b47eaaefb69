import Foundation
import KASDomain
import MediaDRMToolSupport

/// The `kas` tool: `keys`, `token`, `serve`, `assets`, `sign-url`, `origin-config`, `store`.
enum KASCommand {
    static let version = "0.1.0"

    static var tool: Tool {
        Tool(name: "kas", version: version,
             summary: "The key access server and its key and token tools.",
             verbs: [keysPlaceholder, TokenCommand.verb, ServeCommand.verb, assetsPlaceholder, SignURLCommand.verb,
                     OriginConfigCommand.verb, storePlaceholder])
    }

    /// Only for `kas --help` and `kas help assets`: `main.swift` hands `kas assets ...` to `AssetsCommand`.
    static var assetsPlaceholder: ToolVerb {
        ToolVerb("assets", summary: "Manage the delivery catalog: add, list, remove.",
                 discussion: "Actions: add, list, remove. Run 'kas assets <action> --help' for each action's options.",
                 arguments: [ToolArgument("action", help: "add | list | remove", optional: true)]) { _, _ in
            throw UsageError("run 'kas assets <action>'; see 'kas assets --help'")
        }
    }

    /// Only for `kas --help` and `kas help store`: `main.swift` hands `kas store ...` to `StoreCommand`.
    static var storePlaceholder: ToolVerb {
        ToolVerb("store", summary: "Move the state into a shared Redis, or rekey its viewers: migrate, rekey.",
                 discussion: "Actions: migrate, rekey. Run 'kas store <action> --help' for each action's options.",
                 arguments: [ToolArgument("action", help: "migrate | rekey", optional: true)]) { _, _ in
            throw UsageError("run 'kas store <action>'; see 'kas store --help'")
        }
    }

    /// Only for `kas --help` and `kas help keys`: `main.swift` hands `kas keys ...` to `KeysCommand`.
    static var keysPlaceholder: ToolVerb {
        ToolVerb("keys", summary: "Manage the key ring: generate, rotate, list, export-public, remove, seal, unseal.",
                 discussion: """
                 Actions: generate, rotate, list, export-public, remove. \
                 Run 'kas keys <action> --help' for each action's options.
                 """,
                 arguments: [ToolArgument("action", help: "generate | rotate | list | export-public | remove | seal | unseal", optional: true)]) { _, _ in
            throw UsageError("run 'kas keys <action>'; see 'kas keys --help'")
        }
    }
}

/// Options and helpers shared by the verbs.
enum CommonOptions {
    static let dataDirectory = ToolOption.single(
        "data-dir", valueName: "dir",
        help: "The KAS data directory (key ring in <dir>/keys). Default: $KAS_DATA_DIR, else ./kas-data.")

    /// `--data-dir`, else `KAS_DATA_DIR`, else `./kas-data`.
    static func dataDirectory(_ parsed: ParsedArguments) throws(UsageError) -> String {
        if let value = parsed.value("data-dir") {
            guard !value.isEmpty else { throw UsageError("invalid value '' for '--data-dir': expected a directory") }
            return value
        }
        if let value = ProcessInfo.processInfo.environment["KAS_DATA_DIR"], !value.isEmpty {
            return value
        }
        return "./kas-data"
    }

    /// The key ring's key-encryption key from the environment (`KAS_KEY_RING_SEAL_KEY_FILE`,
    /// `KAS_KEY_RING_SEAL_KEY`, the systemd credential `kas-seal-key`); nil when none is set,
    /// which only an unsealed ring accepts.
    static func sealKey() throws(KeyRingError) -> KeyRingSealKey? {
        try KeyRingSealKey.resolve(environment: ProcessInfo.processInfo.environment)
    }
}
