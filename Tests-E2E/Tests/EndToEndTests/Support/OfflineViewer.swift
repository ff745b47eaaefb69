import Foundation

/// A viewer of the offline path, through the `player` tool as a person runs it: `download`
/// into a library of their own, `play --title` (under `unshare -n` when the network must be
/// absent), `license`, `delete`, with the clock set through the tool's test-only variable.
struct OfflineViewer {
    let kas: KASFixture
    let token: String
    let library: String

    init(kas: KASFixture, subject: String, library: String = Scratch.directory("library") + "/mediadrm") throws {
        self.kas = kas
        token = try kas.token(subject, ttl: 3600)
        self.library = library
    }

    /// The tool's test-only clock (docs/offline.md).
    static let clockVariable = "MEDIADRM_PLAYER_TEST_NOW"

    static func environment(now: Int64?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment[clockVariable] = now.map(String.init)
        return environment
    }

    func download(_ url: String, name: String? = nil, now: Int64? = nil) throws -> ProcessResult {
        var arguments = ["download", url, "--kas", kas.publicURL, "--ca", kas.caFile, "--token", token,
                         "--library", library, "--json"]
        if let name { arguments += ["--name", name] }
        return try run(try Tools.player, arguments, environment: Self.environment(now: now))
    }

    /// `player play --title NAME --output FILE`, in a network namespace with no usable
    /// interface when `offline` (as root: `unshare -n`); the clear file when it succeeded.
    func play(_ name: String, now: Int64? = nil, offline: Bool = true, library: String? = nil) throws -> (result: ProcessResult, media: Data?) {
        let output = Scratch.directory("offline-play") + "/clear.mp4"
        let player = try Tools.player
        let arguments = ["play", "--title", name, "--library", library ?? self.library, "--output", output]
        let result = offline
            ? try run("/usr/bin/unshare", ["-n", player] + arguments, environment: Self.environment(now: now))
            : try run(player, arguments, environment: Self.environment(now: now))
        return (result, FileManager.default.contents(atPath: output))
    }

    func license(_ action: String, _ name: String, now: Int64? = nil) throws -> ProcessResult {
        try run(try Tools.player, ["license", action, name, "--token", token, "--ca", kas.caFile, "--library", library],
                environment: Self.environment(now: now))
    }

    func delete(_ name: String) throws -> ProcessResult {
        try run(try Tools.player, ["delete", name, "--token", token, "--ca", kas.caFile, "--library", library])
    }

    /// The title's record as JSON.
    func record(_ name: String, library: String? = nil) throws -> [String: Any] {
        let path = (library ?? self.library) + "/titles/\(name)/title.json"
        guard let data = FileManager.default.contents(atPath: path),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestFailure("no title record at \(path)")
        }
        return object
    }

    /// The title as `player library --json` lists it (its first play comes from the sealed record).
    func listed(_ name: String) throws -> [String: Any] {
        let listing = try run(try Tools.player, ["library", "--library", library, "--json"])
        guard listing.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(listing.stdoutText.utf8)) as? [String: Any],
              let item = (object["titles"] as? [[String: Any]])?.first(where: { $0["name"] as? String == name }) else {
            throw TestFailure("player library does not list \(name): \(listing.stderr)")
        }
        return item
    }

    func writeRecord(_ object: [String: Any], _ name: String, library: String? = nil) throws {
        let path = (library ?? self.library) + "/titles/\(name)/title.json"
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }

    /// A copy of this library (same device key): a test changes its copy, never the original.
    func copy() throws -> OfflineViewer {
        var copy = self
        let target = Scratch.directory("library-copy") + "/mediadrm"
        try Self.copyPrivately(library, to: target)
        copy = OfflineViewer(kas: kas, token: token, library: target)
        return copy
    }

    /// Copies a library or a title directory, keeping its directories owner-only as the player
    /// requires (a copy made by a person with `cp -a` keeps them so too).
    static func copyPrivately(_ source: String, to target: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: target)
        let directories = [target] + (try FileManager.default.subpathsOfDirectory(atPath: target)).map { target + "/" + $0 }
        for path in directories {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
            }
        }
    }

    private init(kas: KASFixture, token: String, library: String) {
        self.kas = kas
        self.token = token
        self.library = library
    }

    /// The `event` members of the JSON lines on stderr, in order.
    static func events(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
        }
    }
}
