import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMToolSupport

/// `kas keys generate | rotate | list | export-public | remove | seal | unseal`.
enum KeysCommand {
    static var tool: Tool {
        Tool(name: "kas keys", version: KASCommand.version,
             summary: """
             Manage the KAS key ring in <data-dir>/keys: RSA-2048 (rsa:2048) and P-256 (ec:secp256r1) \
             key-access keys with kids (r1, r2, ... and e1, e2, ...), the dev token issuer key (dev1) and \
             the offline-license ES256 signing keys (l1, l2, ...).
             """,
             verbs: [generate, rotate, list, exportPublic, remove, seal, unseal])
    }

    static let algorithmOption = ToolOption.single(
        "algorithm", valueName: "alg", help: "rsa:2048 or ec:secp256r1.")
    static let rotateAlgorithmOption = ToolOption.single(
        "algorithm", valueName: "alg", help: "rsa:2048, ec:secp256r1 or \(OfflineLicenseSigner.algorithmName).")

    static func algorithm(_ parsed: ParsedArguments) throws(UsageError) -> KeyAlgorithm? {
        guard let text = parsed.value("algorithm") else { return nil }
        guard let algorithm = KeyAlgorithm(rawValue: text) else {
            throw UsageError("invalid value '\(text)' for '--algorithm': expected rsa:2048 or ec:secp256r1")
        }
        return algorithm
    }

    static var generate: ToolVerb {
        ToolVerb("generate", summary: "Create the key ring, or whatever is missing of it.",
                 discussion: """
                 Makes the data directory and <data-dir>/keys (mode 0700) and, when absent, an active \
                 RSA-2048 key, an active P-256 key and the dev token issuer's ES256 key (files mode 0600). \
                 Prints one line per key created; an existing complete ring is left as it is.
                 """,
                 options: [CommonOptions.dataDirectory]) { parsed, console in
            let directory = try CommonOptions.dataDirectory(parsed)
            let change = try KeyRing.generate(dataDirectory: directory, sealKey: CommonOptions.sealKey())
            if change.created.isEmpty {
                console.progress("the key ring in '\(directory)' is complete; nothing generated")
            }
            for kid in change.created {
                console.print("\(kid) \(algorithmName(kid, change.ring)) created")
            }
        }
    }

    static var rotate: ToolVerb {
        ToolVerb("rotate", summary: "Make a new active key; the old one is retired but keeps unwrapping.",
                 discussion: """
                 With --algorithm, rotates that algorithm's key; without, both key-access keys. \
                 --algorithm \(OfflineLicenseSigner.algorithmName) rotates the offline-license signing key: \
                 the old one stays published while licences it signed are live. Prints the new kids. \
                 A running server picks the new key up on SIGHUP or restart.
                 """,
                 options: [CommonOptions.dataDirectory, rotateAlgorithmOption]) { parsed, console in
            let directory = try CommonOptions.dataDirectory(parsed)
            if parsed.value("algorithm") == OfflineLicenseSigner.algorithmName {
                let change = try KeyRing.rotateLicenseSigner(dataDirectory: directory, sealKey: CommonOptions.sealKey())
                for kid in change.created {
                    let retired = change.retired.isEmpty ? "" : ", retired \(change.retired.joined(separator: ", "))"
                    console.print("\(kid) \(OfflineLicenseSigner.algorithmName) active\(retired)")
                }
                return
            }
            let algorithms = try algorithm(parsed).map { [$0] } ?? KeyAlgorithm.allCases
            let sealKey = try CommonOptions.sealKey()
            for algorithm in algorithms {
                let change = try KeyRing.rotate(algorithm, dataDirectory: directory, sealKey: sealKey)
                for kid in change.created {
                    let retired = change.retired.isEmpty ? "" : ", retired \(change.retired.joined(separator: ", "))"
                    console.print("\(kid) \(algorithm.rawValue) active\(retired)")
                }
            }
        }
    }

    static var list: ToolVerb {
        ToolVerb("list", summary: "List the keys: kid, algorithm, status, created, retired.",
                 options: [CommonOptions.dataDirectory, ToolOption.json]) { parsed, console in
            let ring = try KeyRing.load(dataDirectory: try CommonOptions.dataDirectory(parsed), sealKey: CommonOptions.sealKey())
            var rows: [ListedKey] = ring.entries.map { entry in
                ListedKey(kid: entry.kid, algorithm: entry.algorithm.rawValue, status: entry.isActive ? "active" : "retired",
                          created: timestamp(entry.created), retired: entry.retired.map(timestamp))
            }
            if let issuer = ring.devIssuer {
                rows.append(ListedKey(kid: issuer.kid, algorithm: "ES256", status: "token-issuer",
                                      created: timestamp(issuer.created), retired: nil))
            }
            for signer in ring.licenseSigners {
                rows.append(ListedKey(kid: signer.kid, algorithm: OfflineLicenseSigner.algorithmName,
                                      status: signer.isActive ? "active" : "retired",
                                      created: timestamp(signer.created), retired: signer.retired.map(timestamp)))
            }
            if parsed.flag("json") {
                try console.printJSON(rows)
                return
            }
            console.print(pad(["KID", "ALGORITHM", "STATUS", "CREATED", "RETIRED"]))
            for row in rows {
                console.print(pad([row.kid, row.algorithm, row.status, row.created, row.retired ?? "-"]))
            }
        }
    }

    static var exportPublic: ToolVerb {
        ToolVerb("export-public", summary: "Print a public key as PEM (the active rsa:2048 key by default).",
                 options: [CommonOptions.dataDirectory, algorithmOption,
                           ToolOption.single("kid", valueName: "kid", help: "Export this key instead of the active one.")]) { parsed, console in
            let algorithm = try algorithm(parsed)
            let ring = try KeyRing.load(dataDirectory: try CommonOptions.dataDirectory(parsed), sealKey: CommonOptions.sealKey())
            let key: KeyRingKey
            if let kid = parsed.value("kid") {
                guard let found = ring.key(kid: kid) else {
                    throw ToolFailure("the key ring has no key '\(kid)'")
                }
                if let algorithm, found.algorithm != algorithm {
                    throw ToolFailure("key '\(kid)' is a \(found.algorithm.rawValue) key, not \(algorithm.rawValue)")
                }
                key = found
            } else {
                let wanted = algorithm ?? .rsa2048
                guard let active = ring.active(wanted) else {
                    throw ToolFailure("the key ring has no active \(wanted.rawValue) key")
                }
                key = active
            }
            console.write(Data(key.publicKeyPEM.utf8))
        }
    }

    static var remove: ToolVerb {
        ToolVerb("remove", summary: "Delete a retired key. Keys wrapped only to it can no longer be unwrapped.",
                 options: [CommonOptions.dataDirectory],
                 arguments: [ToolArgument("kid", help: "The retired key's kid.")]) { parsed, console in
            let kid = try parsed.requiredArgument("kid")
            let change = try KeyRing.remove(kid: kid, dataDirectory: try CommonOptions.dataDirectory(parsed),
                                            sealKey: CommonOptions.sealKey())
            for removed in change.removed { console.print("\(removed) removed") }
        }
    }

    static var seal: ToolVerb {
        ToolVerb("seal", summary: "Encrypt every private key file under the key-encryption key.",
                 discussion: """
                 AES-256-GCM per file, in place, one atomic rename per file (docs/kas.md "Sealed key ring"). \
                 The 32-byte key-encryption key comes from \(KeyRingSealKey.fileVariable), \
                 \(KeyRingSealKey.valueVariable) (base64) or the systemd credential '\(KeyRingSealKey.credentialName)'. \
                 An interrupted run is finished by running it again. Every node sharing the ring then needs the key.
                 """,
                 options: [CommonOptions.dataDirectory]) { parsed, console in
            let directory = try CommonOptions.dataDirectory(parsed)
            let change = try KeyRing.seal(dataDirectory: directory, sealKey: try requiredSealKey())
            console.print("the key ring in '\(directory)' is sealed (\(change.converted) key files sealed now)")
        }
    }

    static var unseal: ToolVerb {
        ToolVerb("unseal", summary: "Write every private key file back as plain PKCS#8 PEM.",
                 discussion: """
                 Needs the key-encryption key the ring was sealed with; an interrupted run is finished by \
                 running it again.
                 """,
                 options: [CommonOptions.dataDirectory]) { parsed, console in
            let directory = try CommonOptions.dataDirectory(parsed)
            let change = try KeyRing.unseal(dataDirectory: directory, sealKey: try requiredSealKey())
            console.print("the key ring in '\(directory)' is not sealed (\(change.converted) key files unsealed now)")
        }
    }

    static func requiredSealKey() throws -> KeyRingSealKey {
        guard let key = try CommonOptions.sealKey() else {
            throw ToolFailure("no key-encryption key: \(KeyRingSealKey.sourcesHint)")
        }
        return key
    }

    struct ListedKey: Encodable {
        let kid: String
        let algorithm: String
        let status: String
        let created: String
        let retired: String?
    }

    static func algorithmName(_ kid: String, _ ring: KeyRing) -> String {
        if let key = ring.key(kid: kid) { return key.algorithm.rawValue }
        if ring.licenseSigners.contains(where: { $0.kid == kid }) { return "\(OfflineLicenseSigner.algorithmName) (ES256)" }
        return ring.devIssuer?.kid == kid ? "ES256 (dev token issuer)" : "?"
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    static func pad(_ columns: [String]) -> String {
        let widths = [6, 14, 14, 22]
        var line = ""
        for (index, column) in columns.enumerated() {
            if index < widths.count {
                line += column.padding(toLength: max(widths[index], column.count + 1), withPad: " ", startingAt: 0)
            } else {
                line += column
            }
        }
        return line
    }
}
