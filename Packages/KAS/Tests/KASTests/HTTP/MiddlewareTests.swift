import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON
import Testing

/// Appends its name to the `X-Order` request header on the way in and to the `X-Trace` response
/// header on the way out, so a test can read both orders.
struct TraceMiddleware: HTTPMiddleware {
    let name: String
    func handle(_ request: ServerRequest, context: inout KASRequestContext,
                next: (ServerRequest, inout KASRequestContext) throws -> ServerResponse) throws -> ServerResponse {
        var request = request
        request.headers["X-Order"] = (request.headers["X-Order"].map { $0 + "," } ?? "") + name
        var response = try next(request, &context)
        response.headers["X-Trace"] = (response.headers["X-Trace"].map { $0 + "," } ?? "") + name
        return response
    }
}

struct SetViewerMiddleware: HTTPMiddleware {
    func handle(_ request: ServerRequest, context: inout KASRequestContext,
                next: (ServerRequest, inout KASRequestContext) throws -> ServerResponse) throws -> ServerResponse {
        context.identity = Identity(subject: "alice", issuer: "test", claims: JSONObject([("sub", .string("alice"))]))
        context.viewerHash = "vh-0123abcd"
        return try next(request, &context)
    }
}

struct RefuseMiddleware: HTTPMiddleware {
    func handle(_ request: ServerRequest, context: inout KASRequestContext,
                next: (ServerRequest, inout KASRequestContext) throws -> ServerResponse) throws -> ServerResponse {
        guard request.headers["Authorization"] != nil else { throw HTTPError.unauthorized }
        return try next(request, &context)
    }
}

struct SecretCarryingError: Error, CustomStringConvertible {
    var description: String { "key material 00112233445566778899" }
}

@Suite("Middleware")
struct HTTPMiddlewareTests {
    @Test func middlewareRunsRouterWideThenGroupsOutsideIn() throws {
        let router = Router<KASRequestContext>()
        router.add(middleware: TraceMiddleware(name: "A")).add(middleware: TraceMiddleware(name: "B"))
        let group = router.group("/g", middleware: [TraceMiddleware(name: "C")]).add(middleware: TraceMiddleware(name: "D"))
        group.group("/inner", middleware: [TraceMiddleware(name: "E")]).get("/x") { request, _ in
            .text(request.headers["X-Order"] ?? "")
        }
        group.get("/y") { request, _ in .text(request.headers["X-Order"] ?? "") }
        router.get("/plain") { request, _ in .text(request.headers["X-Order"] ?? "") }
        let server = try TestServer(router: router)
        defer { server.stop() }

        let inner = try Curl.run([server.url("/g/inner/x")])
        #expect(inner.text == "A,B,C,D,E")
        #expect(inner.header("X-Trace") == "E,D,C,B,A")
        let group2 = try Curl.run([server.url("/g/y")])
        #expect(group2.text == "A,B,C,D")
        let plain = try Curl.run([server.url("/plain")])
        #expect(plain.text == "A,B")
        // Router-wide middleware also wraps the 404 answer; group middleware does not.
        let missing = try Curl.run([server.url("/g/none")])
        #expect(missing.status == 404)
        #expect(missing.header("X-Trace") == nil, "ErrorMiddleware absent: the 404 is thrown through A and B")
    }

    @Test func groupMiddlewareCanRefuseBeforeTheHandler() throws {
        let calls = Counter()
        let router = Router<KASRequestContext>()
        router.add(middleware: ErrorMiddleware())
        router.group("/private", middleware: [RefuseMiddleware()]).get("/thing") { _, _ in
            calls.increment()
            return .text("secret")
        }
        let server = try TestServer(router: router)
        defer { server.stop() }
        let refused = try Curl.run([server.url("/private/thing")])
        #expect(refused.status == 401)
        #expect(refused.text == #"{"error":"unauthorized"}"#)
        #expect(calls.count == 0)
        let allowed = try Curl.run(["-H", "Authorization: Bearer x", server.url("/private/thing")])
        #expect(allowed.status == 200)
        #expect(calls.count == 1)
    }

    @Test func errorsBecomeJSONWithFixedReasons() throws {
        let router = Router<KASRequestContext>()
        router.add(middleware: ErrorMiddleware())
        router.post("/teapot") { request, _ in
            _ = try request.jsonBody()
            throw HTTPError(.tooManyRequests, reason: "rate limited", headers: ["Retry-After": "30"])
        }
        router.get("/boom") { _, _ in throw SecretCarryingError() }
        let server = try TestServer(router: router)
        defer { server.stop() }

        let limited = try Curl.run(["--data-binary", #"{"a":1}"#, server.url("/teapot")])
        #expect(limited.status == 429)
        #expect(limited.text == #"{"error":"rate limited"}"#)
        #expect(limited.header("Retry-After") == "30")

        let badJSON = try Curl.run(["--data-binary", #"{"a":1,"a":2} <script>"#, server.url("/teapot")])
        #expect(badJSON.status == 400)
        #expect(badJSON.text == #"{"error":"malformed JSON body (duplicateKey)"}"#)
        #expect(!badJSON.text.contains("script"))
        // An answer that echoes nothing of the body is still never sniffed into HTML or script.
        #expect(badJSON.header("X-Content-Type-Options") == "nosniff")
        #expect(limited.header("X-Content-Type-Options") == "nosniff")

        let boom = try Curl.run([server.url("/boom")])
        #expect(boom.status == 500)
        #expect(boom.text == #"{"error":"internal error"}"#)
        #expect(boom.header("Cache-Control") == "no-store")
        #expect(boom.header("X-Request-ID")?.count == 16)
    }

    @Test func errorsEscapingAllMiddlewareStillAnswerJSON() throws {
        let router = Router<KASRequestContext>()
        router.get("/boom") { _, _ in throw SecretCarryingError() }
        let server = try TestServer(router: router)
        defer { server.stop() }
        let boom = try Curl.run([server.url("/boom")])
        #expect(boom.status == 500)
        #expect(boom.text == #"{"error":"internal error"}"#)
    }

    @Test func requestLogHasOneLinePerRequestAndNoSecrets() throws {
        let sink = MemoryLogSink()
        let router = Router<KASRequestContext>()
        router.add(middleware: RequestLogMiddleware(sink: sink)).add(middleware: ErrorMiddleware(sink: sink))
        router.group("/media/v1", middleware: [SetViewerMiddleware()]).post("/session/{id}/heartbeat") { _, _ in
            .json(["status": "alive"])
        }
        router.get("/boom") { _, _ in throw SecretCarryingError() }
        let server = try TestServer(router: router)
        defer { server.stop() }

        let token = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2VuLXZhbHVl.c2lnbmF0dXJl"
        let sessionID = "sess-7f3a9c0e1b2d"
        let result = try Curl.run(["-H", "Authorization: Bearer \(token)", "-H", "Cookie: sid=cookie-secret",
                                   "--data-binary", #"{"spcData":"Ym9keS1zZWNyZXQ="}"#,
                                   server.url("/media/v1/session/\(sessionID)/heartbeat?token=query-secret")])
        #expect(result.status == 200)
        _ = try Curl.run(["-H", "Authorization: Bearer \(token)", server.url("/no/such/\(sessionID)")])
        _ = try Curl.run([server.url("/boom")])

        let lines = sink.lines
        let requestLines = lines.filter { $0.contains(#""event":"request""#) }
        #expect(requestLines.count == 3)
        for line in lines {
            for secret in [token, "Bearer", sessionID, "cookie-secret", "Ym9keS1zZWNyZXQ", "query-secret", "key material", "0011223344"] {
                #expect(!line.contains(secret), "log line leaked \(secret)")
            }
        }
        let first = try #require(requestLines.first)
        let object = try #require(try JSONParser.parse(Data(first.utf8)).object)
        #expect(object["route"]?.string == "/media/v1/session/{id}/heartbeat")
        #expect(object["method"]?.string == "POST")
        #expect(object["status"]?.int64 == 200)
        #expect(object["viewer"]?.string == "vh-0123abcd")
        #expect(object["requestId"]?.string == result.header("X-Request-ID"))
        #expect(object["latencyMs"]?.double != nil)
        let second = try #require(try JSONParser.parse(Data(requestLines[1].utf8)).object)
        #expect(second["route"]?.string == "unmatched")
        #expect(second["status"]?.int64 == 404)
        #expect(second["viewer"] == nil)
        #expect(lines.contains { $0.contains(#""event":"unhandled_error""#) && $0.contains("SecretCarryingError") })
    }

    @Test func inventedMethodsAreNotCopiedIntoLogs() throws {
        let sink = MemoryLogSink()
        let router = Router<KASRequestContext>()
        router.add(middleware: RequestLogMiddleware(sink: sink))
        router.get("/x") { _, _ in .text("x") }
        let server = try TestServer(router: router)
        defer { server.stop() }
        let result = try Curl.run(["-X", "SECRETMETHOD", server.url("/x")])
        #expect(result.status == 405)
        #expect(sink.lines.count == 1)
        #expect(sink.lines.allSatisfy { !$0.contains("SECRETMETHOD") && $0.contains(#""method":"OTHER""#) })
    }
}
