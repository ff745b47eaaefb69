import Foundation

/// What a content owner does: write a policy and run the `packager` tool.
enum Publisher {
    enum Profile: String, Sendable, CaseIterable, CustomStringConvertible {
        case fpsV2 = "fps-v2"
        case tdfHLS = "tdf-hls"
        var description: String { rawValue }
    }

    static let premium = "https://example.com/attr/tier/value/premium"
    static let classification = #"{"filter":"passed","flagged":[],"v":1}"#

    /// A policy entitling `premium` viewers (and with `dissem`, only those subjects).
    static func policy(attributes: [String] = [premium], dissem: [String] = []) -> String {
        let attrs = attributes.map { #"{"attribute":"\#($0)"}"# }.joined(separator: ",")
        let subjects = dissem.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"body":{"dataAttributes":[\#(attrs)],"dissem":[\#(subjects)]}}"#
    }

    struct Package {
        /// The package file (fps-v2) or directory (tdf-hls) on disk.
        let path: String
        /// Its path below the origin's root: `name.tdf` or `name/master.m3u8`.
        let originPath: String
        let profile: Profile
        /// The policy uuid the packager chose (the asset id).
        let assetID: String
        /// The `packager --json` summary.
        let summary: [String: Any]
        let seconds: Double
    }

    /// Runs `packager package` into `root` (the origin's directory). `mediaFlags` are the
    /// `arkavo:media` flags (`--max-streams 1`, `--rental-playback-window 60`, ...).
    static func package(_ clip: Clips.Clip, profile: Profile, into root: String, name: String,
                        kasURL: String, kasPublicKeyPEM: String, policy: String = Publisher.policy(),
                        mediaFlags: [String] = []) throws -> Package {
        let work = Scratch.directory("publish")
        let keyFile = work + "/kas.pem", policyFile = work + "/policy.json"
        try Data(kasPublicKeyPEM.utf8).write(to: URL(fileURLWithPath: keyFile))
        try Data(policy.utf8).write(to: URL(fileURLWithPath: policyFile))
        let output = profile == .fpsV2 ? root + "/\(name).tdf" : root + "/\(name)/"
        let started = Date()
        let result = try run(try Tools.packager, [
            "package", clip.path, "-o", output, "--profile", profile.rawValue, "--kas-url", kasURL,
            "--kas-public-key", keyFile, "--policy", policyFile, "--classification", classification,
            "--segment-duration", "2", "--json", "--quiet",
        ] + mediaFlags)
        let seconds = Date().timeIntervalSince(started)
        guard result.status == 0 else {
            throw TestFailure("packager \(profile) \(clip) failed (\(result.status)): \(result.stderr)")
        }
        guard let summary = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
              let uuid = summary["policyUUID"] as? String else {
            throw TestFailure("packager printed no JSON summary with policyUUID: \(result.stdoutText)")
        }
        return Package(path: output, originPath: profile == .fpsV2 ? "\(name).tdf" : "\(name)/master.m3u8",
                       profile: profile, assetID: uuid, summary: summary, seconds: seconds)
    }
}
