import Foundation
import Testing
@testable import Client

/// `player play` with a delivery URL or `--asset` against `delivery_stub.py` as the key
/// service's playback API: the rule's usage errors, a refused viewer, and release at the end of
/// a playback that failed. (Playing real titles through it needs the real KAS: the delivery
/// end-to-end tests.)
@Suite struct PlayerDeliveryTests {
    static let asset = "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"

    let client: HTTPClient

    init() throws {
        client = try HTTPClient()
    }

    func stub() throws -> DeliveryStub {
        let root = try makeTemporaryDirectory()
        try Data(repeating: 0x42, count: 5000).write(to: root.appendingPathComponent("not-a-package.tdf"))
        return try DeliveryStub(arguments: ["--root", root.path, "--asset", "\(Self.asset)=not-a-package.tdf",
                                            "--token", "viewer-token"])
    }

    @Test func sourceAndAssetTogetherOrNeitherIsAUsageError() throws {
        let player = try Tools.player()
        let both = try Tools.run(player, ["play", "https://o.example/t.tdf", "--asset", Self.asset, "--kas", "https://kas.example",
                                          "--token", "t"])
        #expect(both.status == 64)   // EX_USAGE
        #expect(both.stderrText.contains("give either SOURCE or --asset, not both"), "\(both.stderrText)")
        let neither = try Tools.run(player, ["play", "--kas", "https://kas.example", "--token", "t"])
        #expect(neither.status == 64)
        let badAsset = try Tools.run(player, ["play", "--asset", "talk", "--kas", "https://kas.example", "--token", "t"])
        #expect(badAsset.status == 64)
        #expect(badAsset.stderrText.contains("--asset is neither a canonical lower-case UUID"), "\(badAsset.stderrText)")
    }

    @Test func aPlaybackThatFailsIsStillReleased() throws {
        let stub = try stub()
        let output = try makeTemporaryDirectory().appendingPathComponent("out.mp4")
        let run = try Tools.run(try Tools.player(), ["play", stub.url("/v2/media/\(Self.asset)?token=jwt"), "--kas", stub.url(""),
                                                     "--token", "viewer-token", "-o", output.path])
        #expect(run.status == 1)
        #expect(run.stderrText.contains("playback started: Talk, fps-v2 media from http://127.0.0.1:\(stub.port)"), "\(run.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let log = try stub.requests(using: client)
        let order = log.compactMap { request -> String? in
            if request.path.hasPrefix("/v2/media/") { return "describe" }
            if request.path == "/media/v1/playback" { return "start" }
            if request.path.hasPrefix("/origin/") { return "origin" }
            if request.method == "DELETE" { return "release" }
            return nil
        }
        #expect(order.first == "describe")
        #expect(order.dropFirst().first == "start")
        #expect(order.last == "release")
        #expect(order.filter { $0 == "release" }.count == 1)
        // Neither the token nor the signed query is printed.
        #expect(!run.stderrText.contains("viewer-token"))
        #expect(!run.stderrText.contains("token="))
    }

    @Test func aRefusedViewerGetsTheReasonAndNoMedia() throws {
        let stub = try stub()
        let run = try Tools.run(try Tools.player(), ["play", "--asset", "00000000-0000-4000-8000-000000000000", "--kas", stub.url(""),
                                                     "--token", "viewer-token", "--json", "-o", "/dev/null"])
        #expect(run.status == 1)
        #expect(run.stderrText.contains(#""refusal":"not_entitled""#), "\(run.stderrText)")
        #expect(try stub.requests(using: client).allSatisfy { !$0.path.hasPrefix("/origin/") && $0.method != "DELETE" })
    }
}
