import Foundation

/// The shared stage most tests play on: one KAS and one origin for the process, started on first
/// use. Tests keep apart by using their own viewers (subjects) and their own packages.
enum Stage {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var shared: (kas: KASFixture, origin: StaticOrigin)?

    static func start() throws -> (kas: KASFixture, origin: StaticOrigin) {
        lock.lock()
        defer { lock.unlock() }
        if let shared { return shared }
        let kas = try KASFixture()
        let root = Scratch.directory("origin")
        let origin = try StaticOrigin(root: root)
        shared = (kas, origin)
        // The harness deletes its data directory and certificate when stopped.
        atexit {
            Stage.shared?.origin.stop()
            Stage.shared?.kas.stop()
        }
        return (kas, origin)
    }

    /// The `arkavo:media` rules fps-v2 packages carry unless a test gives its own: rules an
    /// open-path player meets, so the KAS parses and applies them on every playback. tdf-hls
    /// packages carry none unless a test gives them: without media rules their keys come through
    /// the OpenTDF rewrap route; with them, through the media rewrap (docs/protocol.md).
    static let everydayRules = ["--max-streams", "4", "--min-security-level", "software"]

    /// Packages `clip` for the shared KAS into the shared origin under a fresh name.
    static func publish(_ clip: Clips.Clip, _ profile: Publisher.Profile, policy: String = Publisher.policy(),
                        mediaFlags: [String]? = nil) throws -> (package: Publisher.Package, url: String) {
        let (kas, origin) = try start()
        let mediaFlags = mediaFlags ?? (profile == .fpsV2 ? everydayRules : [])
        let name = "\(clip.name)-\(profile.rawValue)-\(UUID().uuidString.prefix(8).lowercased())"
        let package = try Publisher.package(clip, profile: profile, into: origin.root, name: name, kasURL: kas.publicURL,
                                            kasPublicKeyPEM: kas.publicKeyPEM, policy: policy, mediaFlags: mediaFlags)
        return (package, origin.url(package.originPath))
    }
}

/// What "the playback matches the source" means here.
enum SourceMatch {
    /// Each track's packets are the source's, bit for bit (streamhash), and the muxed output
    /// decodes frame for frame like the source (framemd5 of each stream; the source decoded
    /// without its edit list, as docs/formats.md explains for AAC priming).
    static func check(_ media: Data, against clip: Clips.Clip) throws -> [String] {
        var problems: [String] = []
        let maps = clip.hasAudio ? ["0:v", "0:a"] : ["0:v"]
        for map in maps {
            let expected = try FFmpeg.streamHash(clip.path, map: map)
            let actual = try FFmpeg.streamHash(pipe: media, map: map)
            if expected != actual { problems.append("\(map) streamhash \(actual) != source \(expected)") }
            if expected.isEmpty { problems.append("\(map): the source has no such stream") }
            let sourceFrames = try FFmpeg.frameHashes(clip.path, map: map)
            if sourceFrames.count < 10 { problems.append("\(map): only \(sourceFrames.count) source frames") }
            let frames = try FFmpeg.frameHashes(pipe: media, map: map)
            if sourceFrames != frames {
                problems.append("\(map) decodes to \(frames.count) frames, source \(sourceFrames.count); first difference at \(zip(sourceFrames, frames).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(frames.count, sourceFrames.count))")
            }
        }
        if !clip.hasAudio, (try? FFmpeg.streamHash(pipe: media, map: "0:a")) != nil {
            problems.append("an audio track appeared in the playback of a silent clip")
        }
        return problems
    }
}
