import Foundation
import MediaDRMJSON

/// `backup.json`, the last file `kas store backup` writes (docs/kas.md "Backups"): what the backup
/// holds, so that restore can tell a complete backup (the manifest is there) from an interrupted
/// one (it is not), and a file changed since (its size or SHA-256 differs) from the copy taken.
struct BackupManifest: Equatable, Sendable {
    /// The manifest's own layout; a later layout is refused by code that does not know it.
    static let format = 1
    static let fileName = "backup.json"

    struct File: Equatable, Sendable {
        /// The file's name in the backup and in the data directory (one of `StoreBackup.files`).
        let name: String
        let bytes: Int64
        /// Lowercase hex SHA-256 of the file's bytes.
        let sha256: String
        /// The schema versions recorded in a database (version table -> version); empty for
        /// other files.
        let schemas: [String: Int]
    }

    /// When the backup started (Unix milliseconds).
    let createdMs: Int64
    let files: [File]

    var json: Data {
        let files = files.map { file -> JSONValue in
            .object(JSONObject([
                ("name", .string(file.name)),
                ("bytes", .number(JSONNumber(file.bytes))),
                ("sha256", .string(file.sha256)),
                ("schemas", .object(JSONObject(file.schemas.sorted { $0.key < $1.key }
                    .map { ($0.key, .number(JSONNumber($0.value))) }))),
            ]))
        }
        let created = Date(timeIntervalSince1970: TimeInterval(createdMs) / 1000)
        return JSONWriter.write(.object(JSONObject([
            ("format", .number(JSONNumber(Self.format))),
            ("created_ms", .number(JSONNumber(createdMs))),
            // For people reading the file; `created_ms` is what the code reads.
            ("created", .string(ISO8601DateFormatter().string(from: created))),
            ("files", .array(files)),
        ])), options: [.sortedKeys, .prettyPrinted])
    }

    /// Parses a manifest; nil for anything that is not one of this format (restore names the file).
    init?(json data: Data) {
        guard let object = (try? JSONParser.parse(data))?.object,
              object["format"]?.int64 == Int64(Self.format),
              let created = object["created_ms"]?.int64,
              let entries = object["files"]?.array else { return nil }
        var files: [File] = []
        for entry in entries {
            guard let file = entry.object, let name = file["name"]?.string, let bytes = file["bytes"]?.int64,
                  let sha256 = file["sha256"]?.string, let schemaObject = file["schemas"]?.object else { return nil }
            var schemas: [String: Int] = [:]
            for (table, version) in schemaObject {
                guard let version = version.int64 else { return nil }
                schemas[table] = Int(version)
            }
            files.append(File(name: name, bytes: bytes, sha256: sha256, schemas: schemas))
        }
        self.init(createdMs: created, files: files)
    }

    init(createdMs: Int64, files: [File]) {
        self.createdMs = createdMs
        self.files = files
    }
}
