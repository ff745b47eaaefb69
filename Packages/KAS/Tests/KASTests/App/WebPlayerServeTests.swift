import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON
import Testing

extension AppTests {
    /// `kas serve`'s web pieces in the assembled KAS (`KASTestHarness`) over real HTTP with the
    /// curl CLI: the player files at /player/ (docs/web.md) and the router-wide CORS rules.
    @Suite struct WebPlayerServeTests {
        static let app = "https://app.example"
        static let playerDirectory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("../../../../WebPlayer/player").standardized.path

        private func harness(_ configure: (inout KASConfiguration) -> Void = { _ in }) throws -> KASTestHarness {
            try KASTestHarness(configure: { configuration in
                configuration.web.allowedOrigins = [Self.app]
                configure(&configuration)
            })
        }

        private func request(_ harness: KASTestHarness, _ path: String, method: String = "GET", headers: [String] = []) throws -> CurlResult {
            try Curl.run(["-X", method] + headers.flatMap { ["-H", $0] } + [harness.url(path)])
        }

        @Test func theModuleIsServedWithItsTypeCSPCachingAndValidator() throws {
            let kas = try harness()
            defer { kas.stop() }
            let module = try request(kas, "/player/mediadrm-player.js")
            #expect(module.status == 200)
            #expect(module.body == FileManager.default.contents(atPath: Self.playerDirectory + "/mediadrm-player.js"))
            #expect(module.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(module.header("Cache-Control") == "no-cache")
            #expect(module.header("X-Content-Type-Options") == "nosniff")
            let csp = try #require(module.header("Content-Security-Policy"))
            #expect(csp.contains("script-src 'self'") && csp.contains("default-src 'none'"))
            #expect(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
            let etag = try #require(module.header("ETag"))
            let again = try request(kas, "/player/mediadrm-player.js", headers: ["If-None-Match: \(etag)"])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)

            let page = try request(kas, "/player/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(!page.text.contains("<script>"), "no inline script")
        }

        @Test(arguments: ["/player/nothing.js", "/player/..%2Fkas.json", "/player/.hidden.js", "/player/README.md",
                          "/player/Mediadrm-player.js"])
        func onlyThePlayersOwnFilesAreServed(path: String) throws {
            let kas = try harness()
            defer { kas.stop() }
            #expect(try request(kas, path).status == 404)
        }

        @Test func webEnabledFalseServesNoPlayer() throws {
            let kas = try harness { $0.web.enabled = false }
            defer { kas.stop() }
            #expect(try request(kas, "/player/mediadrm-player.js").status == 404)
            #expect(try request(kas, "/healthz").status == 200)
        }

        @Test func aPreflightFromAnAllowedOriginIsAnsweredWithoutAWildcard() throws {
            let kas = try harness()
            defer { kas.stop() }
            let preflight = try request(kas, "/media/v1/session/start", method: "OPTIONS", headers: [
                "Origin: \(Self.app)", "Access-Control-Request-Method: POST",
                "Access-Control-Request-Headers: authorization, content-type",
            ])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == Self.app)
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("DELETE") == true)
            #expect(preflight.header("Vary") == "Origin")
            // The module itself: an ES module import from another origin is a CORS request.
            let module = try request(kas, "/player/mediadrm-player.js", headers: ["Origin: \(Self.app)"])
            #expect(module.status == 200)
            #expect(module.header("Access-Control-Allow-Origin") == Self.app)
            // A refusal still reaches the page, so it can show why.
            let refused = try request(kas, "/media/v1/session/start", method: "POST", headers: ["Origin: \(Self.app)"])
            #expect(refused.status == 401)
            #expect(refused.header("Access-Control-Allow-Origin") == Self.app)
        }

        @Test(arguments: ["https://evil.example", "null", "https://app.example.evil.example", "http://app.example"])
        func anotherOriginIsRefusedBeforeAnyRoute(origin: String) throws {
            let kas = try harness()
            defer { kas.stop() }
            let preflight = try request(kas, "/media/v1/key-request", method: "OPTIONS", headers: [
                "Origin: \(origin)", "Access-Control-Request-Method: POST",
            ])
            #expect(preflight.status == 403)
            #expect(preflight.header("Access-Control-Allow-Origin") == nil)
            let simple = try request(kas, "/kas/v2/kas_public_key", headers: ["Origin: \(origin)"])
            #expect(simple.status == 403)
            #expect(simple.text.contains("origin not allowed"))
            #expect(simple.header("Access-Control-Allow-Origin") == nil)
        }

        @Test func aPreflightAskingForAnotherHeaderIsRefused() throws {
            let kas = try harness()
            defer { kas.stop() }
            let preflight = try request(kas, "/media/v1/session/start", method: "OPTIONS", headers: [
                "Origin: \(Self.app)", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: x-debug",
            ])
            #expect(preflight.status == 403)
        }

        /// The method is compared whole with the allowed ones: a part of the list ("ET, H", "POST,")
        /// or another case is not a method the KAS allows.
        @Test func aPreflightMethodMustBeAnAllowedOneExactly() throws {
            let kas = try harness()
            defer { kas.stop() }
            for method in ["ET, H", "POST,", "post", "PUT", "GET, HEAD"] {
                let preflight = try request(kas, "/media/v1/session/start", method: "OPTIONS", headers: [
                    "Origin: \(Self.app)", "Access-Control-Request-Method: \(method)",
                ])
                #expect(preflight.status == 403, "\(method)")
            }
            let allowed = try request(kas, "/media/v1/session/start", method: "OPTIONS", headers: [
                "Origin: \(Self.app)", "Access-Control-Request-Method: DELETE",
            ])
            #expect(allowed.status == 204)
        }

        @Test func theKASsOwnOriginNeedsNoListing() throws {
            let kas = try harness()
            defer { kas.stop() }
            let own = try #require(WebOrigin(kas.publicURL)).serialized
            let answer = try request(kas, "/healthz", headers: ["Origin: \(own)"])
            #expect(answer.status == 200)
            #expect(answer.header("Access-Control-Allow-Origin") == own)
        }

        @Test func aDirectoryWithoutTheModuleIsRefusedNamingIt() throws {
            let directory = try TemporaryDirectory("web-empty")
            #expect(throws: KASApplicationError.self) { try WebPlayerFiles(directory: directory.path) }
            do {
                _ = try WebPlayerFiles(directory: directory.path)
            } catch {
                #expect(error.reason.contains("mediadrm-player.js") && error.reason.contains("web.root"))
            }
        }

        @Test func servableNamesAreFlatWithAKnownExtension() {
            #expect(WebPlayerFiles.contentType(of: "mediadrm-player.js") == "text/javascript; charset=utf-8")
            #expect(WebPlayerFiles.contentType(of: "index.html") == "text/html; charset=utf-8")
            #expect(WebPlayerFiles.contentType(of: "refusals.json") == "application/json; charset=utf-8")
            for name in ["a.b.js", ".js", "A.js", "x.txt", "x.md", "x", "../x.js", "x y.js"] {
                #expect(WebPlayerFiles.contentType(of: name) == nil, "\(name)")
            }
        }
    }
}

extension ConfigTests {
    @Suite struct WebSettingsTests {
        private func parse(_ json: String) throws -> KASConfiguration {
            try KASConfiguration.resolve([KASConfiguration.fileOverrides(bytes: Array(json.utf8), file: "kas.json", baseDirectory: "/etc/kas")])
        }

        @Test func webAndCORSAreReadFromTheFile() throws {
            let configuration = try parse(#"{"web": {"enabled": false, "root": "player"}, "cors": {"allowedOrigins": ["HTTPS://App.Example:443", "http://127.0.0.1:8080"]}}"#)
            #expect(configuration.web.enabled == false)
            #expect(configuration.web.root == "/etc/kas/player")
            #expect(configuration.web.allowedOrigins == ["https://app.example", "http://127.0.0.1:8080"])
            #expect(try parse("{}").web == KASConfiguration.WebSettings())
        }

        @Test(arguments: [#"{"cors": {"allowedOrigins": ["*"]}}"#, #"{"cors": {"allowedOrigins": ["https://a.example/path"]}}"#,
                          #"{"cors": {"allowedOrigins": ["ftp://a.example"]}}"#, #"{"cors": {"allowedOrigins": "https://a.example"}}"#,
                          #"{"web": {"enabled": "yes"}}"#, #"{"web": {"port": 1}}"#])
        func badWebSettingsAreRefused(json: String) {
            #expect(throws: KASConfigurationError.self) { try parse(json) }
        }
    }
}
