import Foundation
import Testing
@testable import Client

/// Media URL renewal and release against `delivery_stub.py` as the playback API and a signed-URL
/// origin whose URLs expire after a number of uses (its deterministic stand-in for `expires`):
/// a read that meets the 403 renews through the playback API and goes on without a gap; a URL
/// about to expire is renewed before it is used; `releaseUrl` is called, and renewal is refused
/// after it. Real titles played through it (a built `kas serve` and `packager`) are the
/// end-to-end suite's (Tests-E2E, ClientPlayback/MediaURLRenewalPlaybackTests.swift).
@Suite(.serialized) struct MediaURLRenewalTests {
    let client: HTTPClient
    let credential: Credential

    init() throws {
        client = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), totalTimeout: .seconds(30)))
        credential = try Credential(bearerToken: "viewer-token")
    }

    static let asset = "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"

    /// A 300 KB file served by a stub whose media URLs each allow `uses` requests.
    func fileStub(uses: Int, expiresIn: Int = 3600) throws -> (DeliveryStub, Data) {
        let root = try makeTemporaryDirectory()
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        try bytes.write(to: root.appendingPathComponent("title.bin"))
        let stub = try DeliveryStub(arguments: ["--root", root.path, "--asset", "\(Self.asset)=title.bin", "--uses", "\(uses)",
                                                "--expires-in", "\(expiresIn)"])
        return (stub, bytes)
    }

    static func token(_ url: String) -> String { url.components(separatedBy: "token=").last ?? "" }

    /// What the log says happened, in order: `playback`, `renew`, `release`, `origin 206`/`origin 403`.
    func events(_ stub: DeliveryStub) throws -> [String] {
        try stub.requests(using: client).compactMap { request in
            if request.path == "/media/v1/playback" { return "playback" }
            if request.path.hasSuffix("/media-url") { return "renew" }
            if request.method == "DELETE" { return "release" }
            if request.path.hasPrefix("/origin/") { return "origin " + (request.target.components(separatedBy: "token=").last ?? "") }
            return nil
        }
    }

    @Test func aRangeReadThatMeetsAnExpiredURLRenewsItAndReadsOnWithoutAGap() async throws {
        let (stub, bytes) = try fileStub(uses: 2)
        let api = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: credential)
        let delivered = try await DeliveredPlayback.start(.asset(Self.asset), api: api, clientPlatform: "linux")
        #expect(delivered.source == .packageURL(delivered.grant.mediaURL))
        let source = try HTTPRangeSource(location: delivered.mediaURL, client: client, options: .init(
            tailPrefetchBytes: 1000, minimumRequestBytes: 40_000, sequentialReadAheadBytes: 40_000, maxCachedBytes: 50_000))
        var read = Data()
        while read.count < bytes.count {
            read += try source.readBytes(offset: UInt64(read.count), count: min(40_000, bytes.count - read.count))
        }
        #expect(read == bytes)
        // 1 opening + 8 reads, 2 uses per URL: at least 4 renewals, each after a 403.
        #expect(delivered.mediaURL.renewals >= 4)
        let log = try stub.requests(using: client)
        let origin = log.filter { $0.path.hasPrefix("/origin/") }
        let renewals = log.filter { $0.path == "/media/v1/playback/\(delivered.grant.playbackID)/media-url" }
        #expect(renewals.count == delivered.mediaURL.renewals)
        #expect(renewals.allSatisfy { $0.method == "POST" && $0.header("authorization") == "Bearer viewer-token" })
        // The origin never sees the bearer token.
        #expect(origin.allSatisfy { $0.header("authorization") == nil })
        // Each token is used until the origin refuses it, then a fresh one takes over.
        let tokens = origin.map { $0.target.components(separatedBy: "token=").last ?? "" }
        #expect(Set(tokens).count == delivered.mediaURL.renewals + 1)
        #expect(await delivered.release() == nil)
        #expect(await delivered.release() == nil)   // once only
        #expect(try events(stub).filter { $0 == "release" }.count == 1)
        // Released: no more URLs.
        #expect(throws: PlaybackError(.denied, "")) { try api.renewMediaURL(playbackID: delivered.grant.playbackID) }
    }

    @Test func thePlaybacksSessionIsKeptAliveUntilRelease() async throws {
        let (stub, _) = try fileStub(uses: 100)
        let api = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: credential)
        let delivered = try await DeliveredPlayback.start(.asset(Self.asset), api: api, clientPlatform: "linux")
        delivered.startKeepingAlive(heartbeatInterval: 0.05)
        let heartbeat = "/media/v1/session/stub-session-\(delivered.grant.playbackID)/heartbeat"
        await eventually("two heartbeats") {
            ((try? stub.requests(using: client)) ?? []).filter { $0.path == heartbeat }.count >= 2
        }
        await delivered.release()
        let log = try events(stub) + ["end"]
        let requests = try stub.requests(using: client)
        #expect(requests.filter { $0.path == heartbeat }.allSatisfy { $0.method == "POST" && $0.header("authorization") == "Bearer viewer-token" })
        // After the release, no heartbeat: the release is the last request the playback made.
        #expect(requests.last { $0.path == heartbeat || $0.method == "DELETE" }?.method == "DELETE")
        #expect(log.contains("release"))
    }

    @Test func aDueURLIsRenewedEvenWhileNoRequestIsMade() async throws {
        let (stub, _) = try fileStub(uses: 100, expiresIn: 600)
        let api = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: credential)
        let clock = SkewedClock()
        let delivered = try await DeliveredPlayback.start(.asset(Self.asset), api: api, clientPlatform: "linux", now: clock.now)
        clock.advance(545)   // within the URL's last minute
        let asked = clock.now()
        delivered.startKeepingAlive()
        await eventually("the renewal") { delivered.mediaURL.renewals == 1 }
        // Renewed on time with no origin request at all; the fresh URL falls due only after the
        // moment the renewal was asked for (an order of instants, not a measured duration).
        #expect(try events(stub) == ["playback", "renew"])
        #expect(delivered.mediaURL.renewAt > asked)
        await delivered.release()
        #expect(try events(stub) == ["playback", "renew", "release"])
    }

    @Test func aURLAboutToExpireIsRenewedBeforeItIsUsed() async throws {
        let (stub, bytes) = try fileStub(uses: 100, expiresIn: 600)
        let api = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: credential)
        let clock = SkewedClock()
        let delivered = try await DeliveredPlayback.start(.asset(Self.asset), api: api, clientPlatform: "linux", now: clock.now)
        // 545 s later, within the URL's last minute.
        clock.advance(545)
        let source = try HTTPRangeSource(location: delivered.mediaURL, client: client)
        #expect(try source.readBytes(offset: 0, count: 10) == [UInt8](bytes.prefix(10)))
        // The first origin request already carries the renewed URL; nothing was refused.
        let renewed = "origin " + (delivered.mediaURL.url.components(separatedBy: "token=").last ?? "-")
        #expect(try events(stub) == ["playback", "renew", renewed, renewed])
        #expect(delivered.mediaURL.renewals == 1)
        await delivered.release()
    }

    @Test func aRefusedViewerGetsNoPlaybackAndNoURL() async throws {
        let (stub, _) = try fileStub(uses: 1)
        let api = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: credential)
        do {
            _ = try await DeliveredPlayback.start(.asset("00000000-0000-4000-8000-000000000000"), api: api, clientPlatform: "linux")
            Issue.record("a playback was granted for an asset the viewer is not entitled to")
        } catch {
            #expect(error.code == .denied)
            #expect(error.refusal == .denied(.notEntitled))
        }
        let wrong = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: try Credential(bearerToken: "other"))
        await #expect(throws: PlaybackError(.unauthorized, "")) {
            try await DeliveredPlayback.start(.asset(Self.asset), api: wrong, clientPlatform: "linux")
        }
        #expect(try events(stub).allSatisfy { !$0.hasPrefix("origin") && $0 != "renew" })
    }

    @Test func aDeliveryDescriptionStartsThePlaybackOfItsTDFSourceWhateverTheOrder() async throws {
        let (stub, bytes) = try fileStub(uses: 100)
        let api = PlaybackAPI(keyServiceURL: stub.url(""), client: client, credential: credential)
        for _ in 0..<4 {
            let delivered = try await DeliveredPlayback.start(.deliveryDescription(stub.url("/v2/media/\(Self.asset)?token=jwt")),
                                                              api: api, clientPlatform: "linux")
            #expect(delivered.grant.assetID == Self.asset)
            let source = try HTTPRangeSource(location: delivered.mediaURL, client: client)
            #expect(try source.readBytes(offset: 0, count: 100) == [UInt8](bytes.prefix(100)))
            await delivered.release()
        }
        let log = try stub.requests(using: client)
        let descriptions = log.filter { $0.path.hasPrefix("/v2/media/") }
        #expect(descriptions.count == 4)
        #expect(descriptions.allSatisfy { $0.target == "/v2/media/\(Self.asset)?token=jwt" && $0.header("accept") == "application/json" })
        let starts = log.filter { $0.path == "/media/v1/playback" }
        #expect(starts.count == 4)
        #expect(starts.allSatisfy {
            String(decoding: $0.body, as: UTF8.self)
                == #"{"assetId":"\#(Self.asset)","clientPlatform":"linux","drmSystem":"tdf","manifestTypes":["hls"]}"#
        })
    }

    @Test func aDescriptionCannotLeadTheTokenOffTheKeyService() async throws {
        let (stub, _) = try fileStub(uses: 100)
        // The API's key service is "localhost", the stub's URLs say 127.0.0.1: another origin.
        let api = PlaybackAPI(keyServiceURL: "http://localhost:\(stub.port)", client: client, credential: credential)
        await #expect(throws: PlaybackError(.malformed, "")) {
            try await DeliveredPlayback.start(.deliveryDescription(stub.url("/v2/media/\(Self.asset)?token=jwt")), api: api,
                                              clientPlatform: "linux")
        }
        // The description was read without the token (another origin), and no playback was asked.
        let log = try stub.requests(using: client)
        #expect(log.filter { $0.path.hasPrefix("/v2/media/") }.allSatisfy { $0.header("authorization") == nil })
        #expect(log.filter { $0.path == "/media/v1/playback" }.isEmpty)
    }
}

/// Wall-clock time a test moves forward.
final class SkewedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset = 0.0

    func advance(_ seconds: Double) { lock.withLock { offset += seconds } }

    var now: @Sendable () -> Double { { [self] in Date().timeIntervalSince1970 + lock.withLock { offset } } }
}
