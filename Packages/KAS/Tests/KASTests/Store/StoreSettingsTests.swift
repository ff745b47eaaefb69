import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import Testing

@Suite struct StoreSettingsTests {
    @Test func sqliteIsTheDefaultAndTheNodeIsTheHostName() throws {
        let configuration = try KASConfiguration.load()
        #expect(configuration.store == KASConfiguration.StoreSettings())
        #expect(configuration.store.url == nil && configuration.store.poolSize == nil && configuration.store.timeoutSeconds == 2)
        #expect(configuration.node == ProcessInfo.processInfo.hostName)
    }

    @Test func fileEnvironmentAndFlagsSetTheStoreWithThePasswordFromTheEnvironment() throws {
        let file = try KASConfiguration.fileOverrides(bytes: Array("""
        {"store": {"url": "redis://kas:file-secret@10.0.0.5:6380/1", "poolSize": 8, "timeoutSeconds": 5}, "node": "node-a"}
        """.utf8), file: "kas.json", baseDirectory: "/etc/kas")
        let fromFile = try KASConfiguration.resolve([file])
        #expect(fromFile.store.url == RedisURL(host: "10.0.0.5", port: 6380, user: "kas", password: "file-secret", database: 1))
        #expect(fromFile.store.poolSize == 8 && fromFile.store.timeoutSeconds == 5)
        #expect(fromFile.node == "node-a")

        let environment = try KASConfiguration.environmentOverrides([
            "KAS_STORE_URL": "redis://kas@127.0.0.1:7000", "KAS_STORE_PASSWORD": "env-secret",
            "KAS_STORE_POOL_SIZE": "3", "KAS_STORE_TIMEOUT_SECONDS": "9", "KAS_NODE": "node-b",
        ])
        let fromEnvironment = try KASConfiguration.resolve([file, environment])
        #expect(fromEnvironment.store.url == RedisURL(host: "127.0.0.1", port: 7000, user: "kas", password: "env-secret"))
        #expect(fromEnvironment.store.poolSize == 3 && fromEnvironment.store.timeoutSeconds == 9)
        #expect(fromEnvironment.node == "node-b")

        let flags = try KASConfiguration.flagOverrides(store: "redis://[::1]:7001/4", node: "node-c")
        let fromFlags = try KASConfiguration.resolve([file, environment, flags])
        // The environment's password still applies to the flag's URL.
        #expect(fromFlags.store.url == RedisURL(host: "::1", port: 7001, password: "env-secret", database: 4))
        #expect(fromFlags.node == "node-c")
    }

    @Test func printedConfigurationMasksThePassword() throws {
        var configuration = KASConfiguration()
        configuration.store.url = try RedisURL("redis://kas:print-secret@redis:6379/0")
        let printed = String(decoding: JSONWriter.write(configuration.jsonValue), as: UTF8.self)
        #expect(printed.contains(#""url":"redis://kas:***@redis:6379/0""#), "\(printed)")
        #expect(!printed.contains("print-secret"))
        #expect(printed.contains(#""node":"#))
    }

    @Test func badStoreSettingsAreClearErrorsWithoutThePassword() {
        #expect {
            _ = try KASConfiguration.environmentOverrides(["KAS_STORE_URL": "redis://:bad-secret@host:99999"])
        } throws: { error in
            let error = error as? KASConfigurationError
            return error?.code == .invalidValue && error?.reason.contains("KAS_STORE_URL") == true
                && error?.reason.contains("port") == true && error?.reason.contains("bad-secret") == false
        }
        #expect(throws: KASConfigurationError(.conflict, "")) {
            _ = try KASConfiguration.load(environment: ["KAS_STORE_PASSWORD": "lonely"])
        }
        #expect(throws: KASConfigurationError(.invalidValue, "")) {
            _ = try KASConfiguration.flagOverrides(store: "rediss://h:1")
        }
        #expect(throws: KASConfigurationError(.missingValue, "")) {
            _ = try KASConfiguration.load(flags: KASConfiguration.flagOverrides(store: "redis://kas@h:1"))
        }
        #expect(throws: KASConfigurationError(.invalidValue, "")) {
            _ = try KASConfiguration.environmentOverrides(["KAS_STORE_POOL_SIZE": "0"])
        }
        #expect(throws: KASConfigurationError(.invalidValue, "")) {
            _ = try KASConfiguration.flagOverrides(node: "has space")
        }
        #expect(throws: KASConfigurationError(.unknownKey, "")) {
            _ = try KASConfiguration.fileOverrides(bytes: Array(#"{"store": {"uri": "redis://h"}}"#.utf8), file: "k.json", baseDirectory: "/")
        }
    }

    @Test func kasServePrintsTheStoreRedactedAndRefusesABadURLByName() throws {
        let temp = try TemporaryDirectory()
        let printed = try KASToolHarness.run(
            ["serve", "--data-dir", temp.appending("data"), "--store", "redis://kas:flag-secret@127.0.0.1:7000/2",
             "--node", "edge-1", "--print-config"],
            environment: ["KAS_STORE_PASSWORD": "env-secret"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let root = try #require(JSONParser.parse(printed.stdout).object)
        #expect(root["store"]?.object?["url"] == .string("redis://kas:***@127.0.0.1:7000/2"))
        #expect(root["node"] == .string("edge-1"))
        #expect(!printed.output.contains("secret") && !printed.stderr.contains("secret"))

        let refused = try KASToolHarness.run(["serve", "--data-dir", temp.appending("data"),
                                              "--store", "redis://:flag-secret@127.0.0.1:notaport", "--print-config"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--store") && refused.stderr.contains("port"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("flag-secret") && refused.output.isEmpty)
    }
}
