import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMToolSupport

/// `kas store migrate`: the single-node SQLite state of a data directory copied into the Redis
/// store a cluster of nodes shares (docs/kas.md "Scale-out with Redis").
enum StoreCommand {
    static var tool: Tool {
        Tool(name: "kas store", version: KASCommand.version,
             summary: "Move the KAS state between stores: the data directory's SQLite files and a shared Redis.",
             verbs: [migrate])
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
            var flags = KASConfiguration.Overrides()
            flags.dataDirectory = try CommonOptions.dataDirectory(parsed)
            let target = try parsed.requiredValue("to")
            do throws(RedisError) {
                flags.storeURL = try RedisURL(target)
            } catch {
                throw UsageError("invalid value for '--to': \(error.reason)")
            }
            // As 'kas serve' reads its store: KAS_STORE_PASSWORD, timeouts, the same checks.
            let configuration: KASConfiguration
            do throws(KASConfigurationError) {
                configuration = try KASConfiguration.load(environment: ProcessInfo.processInfo.environment, flags: flags)
            } catch {
                throw ToolFailure(error.reason)
            }
            let counts: StoreMigration.Counts
            do throws(KASApplicationError) {
                counts = try StoreMigration.migrate(configuration)
            } catch {
                throw ToolFailure(error.reason)
            }
            console.print("sessions \(counts.sessions)")
            console.print("first plays \(counts.firstPlays)")
            console.print("stream limits \(counts.streamLimits)")
            console.print("playbacks \(counts.playbacks)")
            console.print("catalog entries \(counts.catalogEntries)")
            console.print("offline licences \(counts.offlineLicenses)")
            console.progress("copied '\(configuration.dataDirectory)' into \(configuration.store.url?.redacted ?? "")")
        }
    }
}
