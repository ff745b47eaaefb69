import Foundation
import Testing

/// The delivery routes with the real player (docs/delivery.md): a catalogued package played
/// through `player play <delivery URL>` and `player play --asset`, from Debian's nginx with signed
/// URLs, against a real `kas serve`; and media URLs that expire while a playback runs.
@Suite(.serialized) struct DeliveryPlaybackTests {
    /// Both entry points give the source's packets bit for bit; the description's sources come
    /// shuffled (the player picks by DRM system); every playback is released at its end, so a
    /// one-stream title plays again at once.
    @Test func aCataloguedPackagePlaysByDeliveryURLAndByAssetLikeTheSource() throws {
        let deployment = try DeliveryDeployment()
        defer { deployment.stop() }
        let clip = try Clips.av()
        let asset = try deployment.publish(clip, .fpsV2, name: "talk", mediaFlags: ["--max-streams", "1"])
        let hls = try deployment.publish(try Clips.bframes(), .tdfHLS, name: "talk-hls")
        let token = try deployment.token("delivery-viewer")

        for round in 0..<2 {
            let url = try deployment.deliveryURL(asset: asset, subject: "delivery-viewer")
            let delivered = try deployment.play([url], token: token)
            #expect(delivered.result.status == 0, "round \(round): \(delivered.result.stderr)")
            #expect(try SourceMatch.check(try #require(delivered.media), against: clip).isEmpty)
            let byAsset = try deployment.play(["--asset", asset], token: token)
            #expect(byAsset.result.status == 0, "round \(round): \(byAsset.result.stderr)")
            #expect(try SourceMatch.check(try #require(byAsset.media), against: clip).isEmpty)
            // Nothing secret on the player's output.
            #expect(!delivered.result.stderr.contains("token=") && !delivered.result.stderr.contains("md5="))
        }
        // Four playbacks of a one-stream title, one after another: each was released.
        #expect(deployment.requests(route: "/media/v1/playback").count == 4)
        #expect(deployment.requests(route: "/media/v1/playback/{id}").count == 4)
        #expect(deployment.requests(route: "/media/v1/playback").allSatisfy { $0.contains(#""status":200"#) })

        let hlsURL = try deployment.deliveryURL(asset: hls, subject: "delivery-viewer")
        let stream = try deployment.play([hlsURL], token: token)
        #expect(stream.result.status == 0, "\(stream.result.stderr)")
        #expect(try SourceMatch.check(try #require(stream.media), against: try Clips.bframes()).isEmpty)
        // Every media byte came from nginx through a signed URL: nothing was refused.
        let origin = deployment.originRequests()
        #expect(origin.contains { $0.path == "/talk.tdf" && $0.status == 206 })
        #expect(origin.contains { $0.path.hasPrefix("/talk-hls/") && $0.status == 200 })
        #expect(origin.allSatisfy { $0.status == 200 || $0.status == 206 }, "\(origin.filter { $0.status >= 400 })")
    }

    /// Media URLs that live one second past the title, from an origin slowed so a playback
    /// outlasts them: the player renews them (before expiry, or after nginx's 403) and the
    /// playback is still the source, bit for bit.
    @Test func mediaURLsThatExpireDuringPlaybackAreRenewedWithoutAGap() throws {
        let deployment = try DeliveryDeployment(environment: ["KAS_MEDIA_URL_MARGIN_SECONDS": "1"],
                                                httpDirectives: "limit_rate 48k;")
        defer { deployment.stop() }
        let clip = try Clips.av()
        let asset = try deployment.publish(clip, .tdfHLS, name: "slow")
        let token = try deployment.token("renewing-viewer")
        let played = try deployment.play(["--asset", asset], token: token)
        #expect(played.result.status == 0, "\(played.result.stderr)")
        #expect(try SourceMatch.check(try #require(played.media), against: clip).isEmpty)
        let renewals = deployment.requests(route: "/media/v1/playback/{id}/media-url")
        let origin = deployment.originRequests()
        let bytes = (try FileManager.default.subpathsOfDirectory(atPath: deployment.root + "/slow"))
            .compactMap { try? FileManager.default.attributesOfItem(atPath: deployment.root + "/slow/" + $0)[.size] as? Int }
            .reduce(0, +)
        // The transfer at 48 KiB/s outlasts the URL (the title's seconds + 1), so it was renewed.
        #expect(bytes > 48 * 1024 * 6, "the stream is too small to outlast its URL: \(bytes) bytes")
        #expect(!renewals.isEmpty, "no media-URL renewal; origin: \(origin.map { "\($0.status) \($0.path)" })")
        #expect(renewals.allSatisfy { $0.contains(#""status":200"#) })
        // A refused request was retried and served: the last request of each path succeeded.
        var last: [String: Int] = [:]
        for request in origin { last[request.path] = request.status }
        #expect(last.values.allSatisfy { $0 == 200 || $0 == 206 }, "\(last)")
    }
}
