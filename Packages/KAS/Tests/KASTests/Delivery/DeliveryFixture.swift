import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMJSON
import Testing

/// One delivery deployment for a suite, as an operator builds it with the tools: a key ring
/// (`kas keys generate`), an origin secret and nginx block (`kas origin-config`) run by a real
/// nginx on loopback, a delivery secret, a real `kas serve` with `--origin-url`,
/// `--origin-secret-file` and `--delivery-secret-file`, a real fps-v2 package (or, with `cmaf`, a
/// `--profile cmaf` directory at `/talk/`; at most one stream) made by the project's packager for
/// that KAS and catalogued by `kas assets add`; with `keyPerResolution` the cmaf package has
/// an SD rendition (the clip, 160x90) and an HD one (1280x720) packaged with `--key-per-resolution`;
/// with `tdfHLS` a `--profile tdf-hls` directory at `/talk/`; with `subtitles` (cmaf or tdf-hls)
/// the package has an English WebVTT rendition (`--subtitles talk.en.vtt:lang=en`);
/// `serveEnvironment` adds `KAS_*` variables to `kas serve`'s.
/// FairPlay is configured (an openssl-made certificate and `SDKCommandTestDouble` in its `fail`
/// mode: an SDK that answers nothing, so a valid licence URL reaches it and gets 503; with
/// `fairPlayMode: "answer"` it answers the CKC its directory's answers hold); with
/// `fairPlay: false` the KAS has no `fairplay` section and offers no FairPlay.
/// `stop()` ends both servers and removes the directory.
final class DeliveryFixture: @unchecked Sendable {
    static let gold = "https://example.com/attr/tier/value/gold"

    let work: String
    let dataDirectory: String
    let root: String
    let originSecretFile: String
    let deliverySecretFile: String
    let kas: ServedKAS
    let nginx: TestNginx
    let assetID: String
    /// The package as nginx serves it (fps-v2; empty for a directory: cmaf, tdf-hls).
    let packageBytes: Data
    /// The origin's key ring public key (`kas keys export-public`) and the policy file packaged with.
    var publicKeyFile: String { work + "/kas.pub.pem" }
    var policyFile: String { work + "/policy.json" }
    /// The FairPlay SDK stand-in `kas serve` runs (kept for the fixture's life); nil without FairPlay.
    let fairPlaySDK: SDKCommandTestDouble?

    init(serveArguments: [String] = [], cmaf: Bool = false, keyPerResolution: Bool = false, fairPlay: Bool = true,
         fairPlayMode: String = "fail", tdfHLS: Bool = false, subtitles: Bool = false,
         serveEnvironment: [String: String] = [:]) throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-delivery-\(UUID().uuidString.prefix(8))").path
        dataDirectory = work + "/data"
        root = work + "/origin"
        originSecretFile = work + "/origin-secret.conf"
        deliverySecretFile = work + "/delivery.secret"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Self.tool(["keys", "generate", "--data-dir", dataDirectory])

        let port = try TestNginx.freePort()
        let block = try Self.tool(["origin-config", "--root", root, "--secret-file", originSecretFile,
                                   "--listen", "127.0.0.1:\(port)", "--access-log", Self.accessLog(work)]).output
        nginx = try TestNginx(serverBlock: block, port: port, prefix: work + "/nginx")
        do {
            let secret = try SecureRandom.bytes(count: 32)
            _ = FileManager.default.createFile(atPath: deliverySecretFile, contents: Data(secret), attributes: [.posixPermissions: 0o600])
            var environment = serveEnvironment
            if fairPlay {
                let sdk = try SDKCommandTestDouble(spcAssetID: nil)
                fairPlaySDK = sdk
                environment.merge(["KAS_FAIRPLAY_CERTIFICATE_FILE": try SDKCommandTestDouble.certificate(in: work).path,
                                   "KAS_FAIRPLAY_SDK_COMMAND": sdk.executable,
                                   "KAS_FAIRPLAY_SDK_ARGUMENTS": #"["\#(sdk.directory.path)","\#(fairPlayMode)"]"#]) { $1 }
            } else {
                fairPlaySDK = nil
            }
            kas = try ServedKAS.start(["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--origin-url", nginx.url,
                                       "--origin-secret-file", originSecretFile, "--delivery-secret-file", deliverySecretFile]
                                      + serveArguments, in: work, environment: environment)
        } catch {
            nginx.stop()
            throw error
        }
        do {
            let publicKey = work + "/kas.pub.pem"
            try Self.tool(["keys", "export-public", "--data-dir", dataDirectory]).stdout.write(to: URL(fileURLWithPath: publicKey))
            let policy = work + "/policy.json"
            try Data(#"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"\#(Self.gold)"}],"dissem":[]}}"#.utf8)
                .write(to: URL(fileURLWithPath: policy))
            if cmaf || keyPerResolution || tdfHLS {
                var inputs = [try ProjectTools.clip()]
                if keyPerResolution {
                    // The clip's timing (25 fps, an IDR every second, 4 s) at 1280x720, so the renditions line up.
                    let hd = work + "/hd.mp4"
                    try ProjectTools.check(runProcess("/usr/bin/ffmpeg", [
                        "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25",
                        "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-y", hd,
                    ]), "ffmpeg")
                    inputs += [hd, "--key-per-resolution"]
                }
                if subtitles {
                    let vtt = work + "/talk.en.vtt"
                    try Data("WEBVTT\n\n00:00:00.500 --> 00:00:01.500\nHello\n\n00:00:02.500 --> 00:00:03.500\nGoodbye\n".utf8)
                        .write(to: URL(fileURLWithPath: vtt))
                    inputs += ["--subtitles", vtt + ":lang=en"]
                }
                try ProjectTools.check(runProcess(try ProjectTools.packager(), ["package"] + inputs + [
                    "--profile", tdfHLS ? "tdf-hls" : "cmaf", "-o", root + "/talk/", "--kas-url", kas.address,
                    "--kas-public-key", publicKey, "--policy", policy, "--segment-duration", "2", "--max-streams", "1", "--quiet",
                ]), "packager")
                packageBytes = Data()
                assetID = try Self.tool(["assets", "add", root + "/talk/", "--path", "/talk/", "--title", "Talk",
                                         "--data-dir", dataDirectory, "--public-url", kas.address]).output
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return
            }
            try ProjectTools.check(runProcess(try ProjectTools.packager(), [
                "package", try ProjectTools.clip(), "-o", root + "/talk.tdf", "--kas-url", kas.address,
                "--kas-public-key", publicKey, "--policy", policy, "--segment-duration", "2", "--max-streams", "1", "--quiet",
            ]), "packager")
            packageBytes = try Data(contentsOf: URL(fileURLWithPath: root + "/talk.tdf"))
            // A second file beside it: a signature for /talk.tdf must not open it.
            try packageBytes.prefix(1000).write(to: URL(fileURLWithPath: root + "/other.tdf"))
            assetID = try Self.tool(["assets", "add", root + "/talk.tdf", "--path", "/talk.tdf", "--title", "Talk",
                                     "--data-dir", dataDirectory, "--public-url", kas.address]).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            kas.stop()
            nginx.stop()
            throw error
        }
    }

    func stop() {
        kas.stop()
        nginx.stop()
        try? FileManager.default.removeItem(atPath: work)
    }

    /// The origin block's access log (`kas origin-config --access-log`).
    static func accessLog(_ work: String) -> String { work + "/nginx/logs/origin.access.log" }

    /// Runs the built `kas`; a non-zero exit is an error naming its stderr.
    @discardableResult
    static func tool(_ arguments: [String]) throws -> KASToolHarness.Result {
        let result = try KASToolHarness.run(arguments)
        guard result.status == 0 else {
            throw KASToolHarness.Failure(description: "kas \(arguments.first ?? "") exited \(result.status): \(result.stderr)")
        }
        return result
    }

    /// A dev-issuer token; `entitled` adds the package's attribute.
    func token(_ subject: String, entitled: Bool = true) throws -> String {
        var arguments = ["token", "--sub", subject, "--data-dir", dataDirectory]
        if entitled { arguments += ["--claims", #"{"entitlements":["\#(Self.gold)"]}"#] }
        return try Self.tool(arguments).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: HTTP

    func post(_ path: String, token: String?, json members: [(String, JSONValue)]) throws -> CurlResult {
        try request("POST", path, token: token, body: JSONWriter.write(.object(JSONObject(members))),
                    headers: ["Content-Type: application/json"])
    }

    /// `path` on the KAS (a path) or a full URL.
    func request(_ method: String, _ path: String, token: String? = nil, body: Data? = nil,
                 headers: [String] = []) throws -> CurlResult {
        var arguments = ["-X", method]
        if body != nil { arguments += ["--data-binary", "@-"] }
        for header in headers { arguments += ["-H", header] }
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        return try Curl.run(arguments + [path.hasPrefix("http") ? path : kas.address + path], stdin: body)
    }

    /// A playback of the package; the answer's JSON object (nil when refused) and the result.
    func startPlayback(token: String, drmSystem: String = "tdf") throws -> (JSONObject?, CurlResult) {
        let result = try post("/media/v1/playback", token: token, json: [
            ("assetId", .string(assetID)), ("drmSystem", .string(drmSystem)), ("manifestTypes", .array([.string("hls")])),
            ("clientPlatform", .string("linux")),
        ])
        return (result.status == 200 ? (try JSONParser.parse(result.body)).object : nil, result)
    }

    /// The origin secret of `slot`, read from the file as nginx does (for signing URLs in tests).
    func originSecret(slot: Int) throws -> String {
        try Self.originSecret(file: originSecretFile, slot: slot)
    }

    /// One slot's secret from an origin secret file (`kas origin-config` writes it).
    static func originSecret(file: String, slot: Int) throws -> String {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("set $origin_secret_\(slot) ") {
            return String(line.split(separator: "\"")[1])
        }
        throw KASToolHarness.Failure(description: "no slot \(slot) in the origin secret file")
    }

    /// `md5` as nginx's secure_link_md5 computes it, by the openssl CLI: base64url(MD5(text)), unpadded.
    static func nginxMD5(_ text: String) throws -> String {
        let result = try runProcess("/bin/sh", ["-c", "openssl md5 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '='"],
                                    stdin: Data(text.utf8))
        try ProjectTools.check(result, "openssl md5")
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Everything the KAS wrote that an operator can read: its log and the audit log.
    var writtenLogs: String {
        kas.log + ((try? String(contentsOfFile: dataDirectory + "/audit.log", encoding: .utf8)) ?? "")
    }
}
