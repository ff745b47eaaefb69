import Foundation
@testable import KASDomain
import KASTesting
import Testing

/// `kas origin-config --live` on Debian's nginx, serving a real `packager live` directory: the
/// block passes `nginx -t` and runs, playlists carry a Cache-Control of at most half a segment,
/// segments and inits a long one, the signed-URL check still refuses unsigned reads, and the
/// packager's `live-state.json` is not served (docs/live.md "The live origin").
@Suite struct LiveOriginTests {
    @Test func liveBlockCachesSegmentsNotPlaylists() throws {
        let kas = try KASTestHarness()
        defer { kas.stop() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-live-origin-\(UUID().uuidString.prefix(8))").path
        let root = work + "/origin", secretFile = work + "/origin-secret.conf"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let stream = try LiveStreamFixture(kas: kas, in: work)
        try FileManager.default.moveItem(atPath: stream.directory, toPath: root + "/match")

        let port = try TestNginx.freePort()
        let block = try DeliveryFixture.tool([
            "origin-config", "--live", "--segment-duration", "2", "--root", root, "--secret-file", secretFile,
            "--listen", "127.0.0.1:\(port)", "--access-log", DeliveryFixture.accessLog(work),
        ]).output
        let nginx = try TestNginx(serverBlock: block, port: port, prefix: work + "/nginx")
        defer { nginx.stop() }
        // nginx's own check of the configuration it runs.
        let checked = try runProcess(try TestNginx.executable(), ["-t", "-p", nginx.prefix, "-c", nginx.prefix + "/nginx.conf"])
        #expect(checked.status == 0 && checked.stderr.contains("test is successful"), "\(checked.stderr)")

        let secret = try DeliveryFixture.originSecret(file: secretFile, slot: 1)
        let expires = Int64(Date().timeIntervalSince1970) + 600
        let query = "?md5=\(try DeliveryFixture.nginxMD5("\(expires)/match/ \(secret)"))&expires=\(expires)&slot=1"
        func get(_ name: String, signed: Bool = true) throws -> CurlResult {
            try Curl.run([nginx.url + "/match/" + name + (signed ? query : "")])
        }
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: root + "/match")
            .first { $0.hasPrefix("video-segment") && $0.hasSuffix(".tdf") })
        for name in ["master.m3u8", "video.m3u8"] {
            let answer = try get(name)
            #expect(answer.status == 200 && answer.header("Cache-Control") == "private, max-age=1", "\(name): \(answer.headers)")
        }
        for name in [segment, "video-init.mp4"] {
            let answer = try get(name)
            #expect(answer.status == 200 && answer.header("Cache-Control") == OriginConfig.liveSegmentCacheControl,
                    "\(name): \(answer.headers)")
        }
        #expect(try get(segment).body == (try Data(contentsOf: URL(fileURLWithPath: root + "/match/" + segment))))
        #expect(FileManager.default.fileExists(atPath: root + "/match/live-state.json"))
        #expect(try get("live-state.json").status == 404)
        #expect(try get(segment, signed: false).status == 403)
        #expect(try get("video.m3u8", signed: false).status == 403)

        // --segment-duration belongs to --live; a zero duration is refused.
        let stray = try KASToolHarness.run(["origin-config", "--segment-duration", "2", "--root", root,
                                            "--secret-file", secretFile, "--listen", "127.0.0.1:\(port)"])
        #expect(stray.status != 0 && stray.stderr.contains("'--segment-duration' goes with '--live' only"), "\(stray.stderr)")
        let zero = try KASToolHarness.run(["origin-config", "--live", "--segment-duration", "0", "--root", root,
                                           "--secret-file", secretFile, "--listen", "127.0.0.1:\(port)"])
        #expect(zero.status != 0 && zero.stderr.contains("--segment-duration"), "\(zero.stderr)")
    }
}
