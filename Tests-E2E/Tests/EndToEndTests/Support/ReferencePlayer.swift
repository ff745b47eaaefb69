import Client
import MediaDRMCrypto
import Foundation
import MediaDRMJSON
import MediaDRMEncoding
import MediaDRMZIP

/// A remote fps-v2 package read with Range requests (curl), as a player reads it: the end of the
/// archive first, then only the entries it needs.
final class CurlRangeSource: ZIPRandomAccessSource, @unchecked Sendable {
    let url: String
    let size: UInt64
    private(set) var requests = 0

    init(url: String) throws {
        self.url = url
        let probe = try Curl.request("GET", url, headers: ["Range: bytes=0-0"])
        guard probe.status == 206, let range = probe.headers["content-range"],
              let total = range.split(separator: "/").last.flatMap({ UInt64($0) }) else {
            throw TestFailure("the origin did not answer a range request for \(url) (\(probe.status))")
        }
        size = total
    }

    func read(offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        requests += 1
        let response = try Curl.request("GET", url, headers: ["Range: bytes=\(offset)-\(offset + UInt64(count) - 1)"])
        guard response.status == 206, response.body.count == count else {
            throw TestFailure("range \(offset)+\(count) of \(url): \(response.status), \(response.body.count) bytes")
        }
        return [UInt8](response.body)
    }
}

/// The reference playback of an fps-v2 package: the protocol through `Viewer` (one session per
/// component, one playback id), decryption and muxing through the Client library's media layer.
enum ReferencePlayer {
    struct Outcome {
        /// Session starts and key requests, in order: `start video 200`, `key video 200`, ...
        var steps: [String] = []
        var statuses: [Int] = []
        /// The clear fragmented MP4 (empty when a key was refused).
        var media = Data()
        var sessionIDs: [String] = []
        var keysDelivered: Int = 0
    }

    /// Plays to the end unless `holdSessions`, in which case the sessions are left open for the
    /// caller to end (a playback still running).
    static func play(_ packageURL: String, viewer: Viewer, holdSessions: Bool = false) throws -> Outcome {
        let reader = try ZIPReader(source: try CurlRangeSource(url: packageURL))
        let manifest = try reader.read(named: "manifest.json")
        guard let info = try JSONParser.parse(manifest).object?["encryptionInformation"]?.object,
              let policyText = info["policy"]?.string,
              let policy = try JSONParser.parse(try Base64.decode(policyText)).object,
              let asset = policy["uuid"]?.string,
              let components = policy["arkavo:components"]?.array?.compactMap({ $0.object?["id"]?.string }) else {
            throw TestFailure("the package's manifest has no policy uuid or components")
        }
        var outcome = Outcome()
        let playbackID = Base64URL.encode(try SecureRandom.bytes(count: 16))
        var keys: [String: SecretKey] = [:]
        defer {
            if !holdSessions || keys.count < components.count {
                for id in outcome.sessionIDs { _ = try? viewer.endSession(id) }
            }
        }
        for component in components {
            let started = try viewer.startSession(asset: asset, playbackID: playbackID)
            outcome.steps.append("start \(component) \(started.status)")
            outcome.statuses.append(started.status)
            guard started.status == 200, let id = started.json?["sessionId"] as? String else { return outcome }
            outcome.sessionIDs.append(id)
            let (answer, key) = try viewer.keyRequest(asset: asset, component: component, sessionID: id, manifest: manifest)
            outcome.steps.append("key \(component) \(answer.status)")
            outcome.statuses.append(answer.status)
            guard let key else { return outcome }
            keys[component] = key
        }
        outcome.keysDelivered = keys.count
        // Every key in hand: only now is any media entry read.
        var inits: [ClearInitSegment] = []
        var sources: [any MediaFragmentSource] = []
        for component in components {
            let clear = try InitSegmentRewriter.rewrite([UInt8](try reader.read(named: "\(component)-init.mp4")))
            guard let key = keys[component] else { throw TestFailure("no key for \(component)") }
            let decryptor = try FragmentDecryptor(initSegment: clear, key: key)
            var next = 0
            sources.append(DecryptingSegmentSource(decryptor: decryptor) {
                guard reader.entry(named: "\(component)-segment\(next).m4s") != nil else { return nil }
                defer { next += 1 }
                return [UInt8](try reader.read(named: "\(component)-segment\(next).m4s"))
            })
            inits.append(clear)
        }
        let output = MemoryOutput()
        try FragmentedMP4Muxer(components: inits).stream(sources, to: output)
        outcome.media = Data(output.bytes)
        return outcome
    }
}
