import Foundation
import MediaDRMJSON
import MediaDRMTDF
import Synchronization
import Testing
@testable import Client

/// The bulk rewraps wait out the key service's rate limit (`RateLimitWait`): a real `kas serve`
/// behind `Tools/python/rate_limit_proxy.py`, which answers the first media rewraps 429 with a
/// `Retry-After` as a rate-limited KAS does. The proxy's event file gives the order of what the
/// client sent; no duration is compared.
@Suite struct RateLimitWaitTests {
    /// What a playback of 4 segments (lookahead 2: two bulk rewraps) did behind the proxy.
    struct Outcome {
        let played: Int
        let error: PlaybackError?
        let announced: [Int]
        let events: [String]
    }

    static func play(limitFirst: Int, retryAfter: String) async throws -> Outcome {
        let kas = try KASServe("rate-limited-kas")
        defer { kas.stop() }
        let token = try kas.token(subject: "rate-limited", claims: #"{"entitlements":["\#(PlaybackFixture.attribute)"]}"#)
        let directory = URL(fileURLWithPath: Scratch.directory("rate-limited-segments"))
        let uuid = UUID().uuidString.lowercased()
        let options = TDFEncryptOptions(
            kasURL: kas.address, kasPublicKey: try KASPublicKey(pemRepresentation: kas.publicKeyPEM),
            policy: TDFPolicy(uuid: uuid, dataAttributes: [PlaybackFixture.attribute],
                              media: try JSONParser.parse(Data(#"{"v":1,"maxConcurrentStreams":1}"#.utf8))))
        let names = (0..<4).map { "video-segment\($0).tdf" }
        for (index, name) in names.enumerated() {
            try TDF.encrypt(Data("segment \(index)".utf8), options: options).write(to: directory.appendingPathComponent(name))
        }
        let events = directory.appendingPathComponent("proxy-events.txt")
        let proxy = try LoopbackScript("rate_limit_proxy.py", arguments: [
            "--upstream", kas.address, "--path", "/media/v1/rewrap", "--limit-first", String(limitFirst),
            "--retry-after", retryAfter, "--events", events.path,
        ])
        defer { proxy.stop() }
        let proxyURL = proxy.url("")

        let announced = Mutex<[Int]>([])
        let client = try HTTPClient()
        let credential = try Credential(bearerToken: token)
        let keys = TDFSegmentKeys(
            loader: DirectoryResourceLoader(directory: directory.path), components: [.init(id: "video", segments: names)],
            rewrap: OpenTDFRewrapClient(baseURL: proxyURL, client: client, credential: credential,
                                        rateLimit: RateLimitWait(announce: { seconds in announced.withLock { $0.append(seconds) } })),
            keyServiceURL: kas.address, lookahead: 2, clock: SystemPlaybackClock(), progress: nil)
        let session = TDFHLSMediaSession(service: KASMediaService(baseURL: proxyURL, client: client, credential: credential),
                                         assetID: uuid, rendition: "video", clock: SystemPlaybackClock(), progress: nil)
        keys.useMediaSession(try await session.start())
        var played = 0
        var failure: PlaybackError?
        do throws(PlaybackError) {
            for index in 0..<names.count where try keys.clearSegment(component: 0, index: index) == Array("segment \(index)".utf8) {
                played += 1
            }
        } catch {
            failure = error
        }
        await session.stop()
        let lines = ((try? String(contentsOf: events, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return Outcome(played: played, error: failure, announced: announced.withLock { $0 },
                       events: lines.filter { $0.contains("/media/v1/rewrap") })
    }

    @Test func aRateLimitedRewrapIsSentAgainAfterRetryAfterAndThePlaybackCompletes() async throws {
        let outcome = try await Self.play(limitFirst: 1, retryAfter: "1")
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.played == 4)
        #expect(outcome.announced == [1])
        // The refused request, then the same window again (answered by the KAS), then the next window.
        #expect(outcome.events == ["limited POST /media/v1/rewrap", "forwarded POST /media/v1/rewrap 200",
                                   "forwarded POST /media/v1/rewrap 200"], "\(outcome.events)")
    }

    @Test func theWaitIsBoundedInAttempts() async throws {
        let outcome = try await Self.play(limitFirst: RateLimitWait.maximumAttempts, retryAfter: "1")
        #expect(outcome.error?.status == 429 && outcome.error?.code == .concurrencyLimit, "\(String(describing: outcome.error))")
        #expect(outcome.played == 0)
        #expect(outcome.announced == Array(repeating: 1, count: RateLimitWait.maximumAttempts - 1))
        #expect(outcome.events == Array(repeating: "limited POST /media/v1/rewrap", count: RateLimitWait.maximumAttempts))
    }

    @Test func aRetryAfterBeyondTheBoundIsNotWaitedFor() async throws {
        let outcome = try await Self.play(limitFirst: 1, retryAfter: String(RateLimitWait.maximumWaitSeconds + 1))
        #expect(outcome.error?.status == 429)
        #expect(outcome.announced.isEmpty)
        #expect(outcome.events == ["limited POST /media/v1/rewrap"])
    }
}
