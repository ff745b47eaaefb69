import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMToolSupport

/// `kas store migrate`: the single-node SQLite state of a data directory copied into the Redis
/// store a cluster of nodes shares (docs/kas.md "Scale-out with Redis"). `kas store rekey`: the
/// records of an earlier version, keyed by subject alone, moved to the viewers of one issuer.
/// `kas store backup|restore`: the data directory's SQLite state copied while serving, and put
/// back (docs/kas.md "Backups").
enum StoreCommand {
    static var tool: Tool {
        Tool(name: "kas store", version: KASCommand.version,
             summary: "Move the KAS state between stores (the data directory's SQLite files and a shared Redis), rekey, back up or restore it.",
             verbs: [migrate, rekey, backup, restore])
    }

    static var migrate: ToolVerb {
        ToolVerb("migrate", summary: "Copy the data directory's SQLite state into Redis.",
                 discussion: """
                 Copies the media store's sessions, first-play records and stream limits, the catalog and the \
                 offline licences from <data-dir>/media.sqlite and offline.sqlite into the Redis at --to \
                 (redis://[user:password@]host:port/db; the password may come from KAS_STORE_PASSWORD \
                 instead, which keeps it off the command line). The Redis is checked as 'kas serve' checks \
                 it (reachable, password accepted, maxmemory-policy noeviction). The SQLite files are only \
                 read; running it again changes nothing (an earlier first play in Redis is kept). Stop the \
                 single node first so no session starts during the copy. Prints what was copied.
                 """,
                 options: [
                    ToolOption.single("to", valueName: "redis-url", help: "The Redis the nodes will share.", required: true),
                    CommonOptions.dataDirectory,
                 ]) { parsed, console in
            let configuration = try StoreCommand.configuration(parsed, storeOption: "to")
            let counts = try step { () throws(KASApplicationError) in try StoreMigration.migrate(configuration) }
            console.print("sessions \(counts.sessions)")
            console.print("first plays \(counts.firstPlays)")
            console.print("stream limits \(counts.streamLimits)")
            console.print("playbacks \(counts.playbacks)")
            console.print("catalog entries \(counts.catalogEntries)")
            console.print("offline licences \(counts.offlineLicenses)")
            console.progress("copied '\(configuration.dataDirectory)' into \(configuration.store.url?.redacted ?? "")")
        }
    }

    static var rekey: ToolVerb {
        ToolVerb("rekey", summary: "Key the viewers of records written by an earlier version by issuer and subject.",
                 discussion: """
                 Earlier versions kept every per-viewer record (media sessions, first plays, rate buckets, \
                 offline licences) under a hash of the token's sub alone, so viewers of two issuers with the \
                 same sub shared them. This moves every such record to the viewer of --issuer with that sub, \
                 in the data directory's media.sqlite and offline.sqlite (one transaction each) or in the Redis \
                 at --store (redis://[user@]host:port/db, password from KAS_STORE_PASSWORD; else KAS_STORE_URL), \
                 and marks the store, which 'kas serve' requires. Run it once, with every KAS node on the store \
                 stopped; a second run is refused. Prints what was moved.
                 """,
                 options: [
                    ToolOption.single("issuer", valueName: "iss", help: "The issuer (token iss) whose viewers made the records.",
                                      required: true),
                    ToolOption.single("store", valueName: "redis-url", help: "Rekey this Redis instead of the data directory."),
                    CommonOptions.dataDirectory,
                 ]) { parsed, console in
            let issuer = try parsed.requiredValue("issuer")
            guard !issuer.isEmpty else { throw UsageError("invalid value '' for '--issuer': expected the issuer of the records") }
            let configuration = try StoreCommand.configuration(parsed, storeOption: "store")
            let counts = try step { () throws(KASApplicationError) in try StoreRekey.rekey(configuration, issuer: issuer) }
            console.print("sessions \(counts.sessions)")
            console.print("first plays \(counts.firstPlays)")
            console.print("rate buckets \(counts.rateBuckets)")
            console.print("offline licences \(counts.offlineLicenses)")
            console.progress("rekeyed the viewers of \(configuration.store.url?.redacted ?? "'\(configuration.dataDirectory)'") to issuer \(issuer)")
        }
    }

    static var backup: ToolVerb {
        ToolVerb("backup", summary: "Copy the data directory's SQLite state into a new directory, while kas serve runs.",
                 discussion: """
                 Copies <data-dir>/media.sqlite (media store, catalog, playbacks) and offline.sqlite with \
                 SQLite's online backup API, which a running 'kas serve' does not notice, and license-url.key, \
                 into the new directory --to, then writes backup.json (sizes, SHA-256, schema versions, time) \
                 last: a directory without it is an interrupted backup, which restore refuses. Each database \
                 is a consistent snapshot; the two are taken one after the other (docs/kas.md "Backups"). \
                 The key ring (keys/) is not copied: back it up apart, sealed. A Redis store (--store, \
                 KAS_STORE_URL) is refused: use Redis's own persistence (RDB, AOF).
                 """,
                 options: [
                    ToolOption.single("to", valueName: "dir", help: "The new directory to write the backup into.", required: true),
                    ToolOption.single("store", valueName: "redis-url", help: "Refused: a Redis store is backed up by Redis."),
                    CommonOptions.dataDirectory,
                 ]) { parsed, console in
            let destination = try parsed.requiredValue("to")
            let configuration = try StoreCommand.configuration(parsed, storeOption: "store")
            let summary = try step { () throws(KASApplicationError) in try StoreBackup.backup(configuration, to: destination) }
            for file in summary.files { console.print(file) }
            console.progress("backed up '\(configuration.dataDirectory)' into '\(destination)'")
        }
    }

    static var restore: ToolVerb {
        ToolVerb("restore", summary: "Put a kas store backup back into a data directory.",
                 discussion: """
                 Checks --from's backup.json (present: the backup finished), every file's size and SHA-256, \
                 and the schema versions (a backup from a newer kas is refused), then puts media.sqlite, \
                 offline.sqlite and license-url.key in place, each atomically, in <data-dir> (created when \
                 absent). Stop 'kas serve' on the data directory first: nothing tells restore that one runs, \
                 so a data directory that holds state files is refused unless --force. The key ring is not \
                 in the backup: restore keys/ from its own backup.
                 """,
                 options: [
                    ToolOption.single("from", valueName: "dir", help: "The backup directory (kas store backup --to).", required: true),
                    ToolOption.flag("force", help: "Replace the state files the data directory holds (kas serve stopped)."),
                    ToolOption.single("store", valueName: "redis-url", help: "Refused: a Redis store is restored by Redis."),
                    CommonOptions.dataDirectory,
                 ]) { parsed, console in
            let source = try parsed.requiredValue("from")
            let configuration = try StoreCommand.configuration(parsed, storeOption: "store")
            let force = parsed.flag("force")
            let summary = try step { () throws(KASApplicationError) in
                try StoreRestore.restore(configuration, from: source, force: force)
            }
            for file in summary.files { console.print(file) }
            console.progress("restored '\(source)' into '\(configuration.dataDirectory)'")
        }
    }

    /// The configuration of `--data-dir` and the Redis named by `--<storeOption>` (if given), read
    /// as 'kas serve' reads its store: KAS_STORE_URL and KAS_STORE_PASSWORD, timeouts.
    private static func configuration(_ parsed: ParsedArguments, storeOption: String) throws -> KASConfiguration {
        var flags = KASConfiguration.Overrides()
        flags.dataDirectory = try CommonOptions.dataDirectory(parsed)
        if let store = parsed.value(storeOption) {
            do throws(RedisError) {
                flags.storeURL = try RedisURL(store)
            } catch {
                throw UsageError("invalid value for '--\(storeOption)': \(error.reason)")
            }
        }
        do throws(KASConfigurationError) {
            return try KASConfiguration.load(environment: ProcessInfo.processInfo.environment, flags: flags)
        } catch {
            throw ToolFailure(error.reason)
        }
    }

    /// Runs a store step; its failure is the tool's, with the step's reason.
    private static func step<T>(_ body: () throws(KASApplicationError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ToolFailure(error.reason)
        }
    }
}
