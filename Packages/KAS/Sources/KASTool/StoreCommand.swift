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
enum StoreCommand {
    static var tool: Tool {
        Tool(name: "kas store", version: KASCommand.version,
             summary: "Move the KAS state between stores (the data directory's SQLite files and a shared Redis), or rekey it.",
             verbs: [migrate, rekey])
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
