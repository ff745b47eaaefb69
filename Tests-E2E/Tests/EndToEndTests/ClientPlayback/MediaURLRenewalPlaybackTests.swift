import Foundation
import Testing
@testable import Client

/// Real titles played through media URL renewal: `delivery_stub.py` as the playback API and a
/// signed-URL origin whose URLs expire after a number of uses, in front of the playback
/// fixture's `kas serve` and its packages (the renewal rules themselves are ClientTests'
/// MediaURLRenewalTests). The fixture's KAS is shared with suites running at the same time, so
/// its live-session count is not asserted here (that a playback ends its media sessions is
/// PlaybackSessionTests').
@Suite(.serialized) struct MediaURLRenewalPlaybackTests {
    let client: HTTPClient

    init() throws {
        client = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), totalTimeout: .seconds(30)))
    }

    static let asset = "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"

    static func token(_ url: String) -> String { url.components(separatedBy: "token=").last ?? "" }

    /// What the stub's log says happened, in order: `playback`, `renew`, `release`, `origin TOKEN`.
    func events(_ stub: DeliveryStub) throws -> [String] {
        try stub.requests().compactMap { method, target in
            let path = String(target.split(separator: "?", maxSplits: 1).first ?? "")
            if path == "/media/v1/playback" { return "playback" }
            if path.hasSuffix("/media-url") { return "renew" }
            if method == "DELETE" { return "release" }
            if path.hasPrefix("/origin/") { return "origin " + Self.token(target) }
            return nil
        }
    }

    private func playDelivered(_ fixture: PlaybackFixture, path: String, uses: Int,
                               initialUses: Int? = nil) async throws -> ([UInt8], DeliveryStub, DeliveredPlayback, PlaybackSession) {
        let stub = try DeliveryStub(arguments: ["--root", fixture.www.path, "--asset", "\(Self.asset)=\(path)", "--uses", "\(uses)",
                                                "--kas", fixture.kasURL, "--token", fixture.entitledToken]
                                    + (initialUses.map { ["--initial-uses", "\($0)"] } ?? []))
        let token = try Credential(bearerToken: fixture.entitledToken)
        let api = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: token)
        let delivered = try await DeliveredPlayback.start(.asset(Self.asset), api: api, clientPlatform: "linux")
        var configuration = try fixture.configuration(token: fixture.entitledToken)
        try delivered.configure(&configuration)
        let output = MemoryOutput()
        let session = PlaybackSession(source: delivered.source, configuration: configuration)
        do {
            try await session.play(to: output)
        } catch {
            Issue.record("the delivered playback failed: \(error)")
        }
        await delivered.release()
        return (output.bytes, stub, delivered, session)
    }

    @Test func aTDFHLSTitlePlaysBitExactThroughExpiringURLs() async throws {
        let fixture = try PlaybackFixture.get()
        let (bytes, stub, delivered, _) = try await playDelivered(fixture, path: "stream/master.m3u8", uses: 3)
        let hashes = try FFmpeg.streamHashes(try fixture.write(bytes, "renewed-hls.mp4").path)
        #expect(hashes["v"] != nil)
        #expect(hashes["v"] == fixture.sourceStreamHashes["v"])
        #expect(hashes["a"] == fixture.sourceStreamHashes["a"])
        #expect(delivered.mediaURL.renewals >= 2)
        let log = try events(stub)
        #expect(log.first == "playback")
        #expect(log.last == "release")
    }

    @Test func anFPSv2PackagePlaysBitExactThroughExpiringURLsAndItsSessionsJoinThePlayback() async throws {
        let fixture = try PlaybackFixture.get()
        // The small package is read in few requests: its first URL is refused at once instead.
        let (bytes, stub, delivered, session) = try await playDelivered(fixture, path: "talk.tdf", uses: 100, initialUses: 0)
        let hashes = try FFmpeg.streamHashes(try fixture.write(bytes, "renewed-package.mp4").path)
        #expect(hashes["v"] != nil)
        #expect(hashes["v"] == fixture.sourceStreamHashes["v"])
        #expect(hashes["a"] == fixture.sourceStreamHashes["a"])
        #expect(delivered.mediaURL.renewals == 1)
        let log = try events(stub)
        #expect(log.prefix(3) == ["playback", "origin \(Self.token(delivered.grant.mediaURL))", "renew"])
        #expect(log.last == "release")
        // The media sessions carried the playback's id (one stream slot for the playback).
        #expect(session.contentKeySession?.playbackID == delivered.grant.playbackID)
    }
}
