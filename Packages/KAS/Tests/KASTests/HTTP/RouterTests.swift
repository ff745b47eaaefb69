import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON
import Testing

@Suite("Router over the real server")
struct HTTPRouterTests {
    static func makeRouter() -> Router<KASRequestContext> {
        let router = Router<KASRequestContext>()
        router.add(middleware: ErrorMiddleware())
        let media = router.group("/media/v1")
        media.post("/session/{id}/heartbeat") { _, context in
            .json(["id": .string(try context.parameters.require("id")), "route": .string(context.route ?? "")])
        }
        media.delete("/session/{id}") { _, context in
            .json(["ended": .string(try context.parameters.require("id"))])
        }
        media.get("/session/current") { _, _ in .text("literal") }
        media.get("/session/{id}") { _, context in .text("param \(context.parameters["id"] ?? "")") }
        router.get("/healthz") { _, _ in .text("ok") }
        router.get("/a/{x}/b/{y}") { _, context in
            .text("\(context.parameters["x"] ?? "")+\(context.parameters["y"] ?? "")")
        }
        return router
    }

    @Test func pathParametersAreCaptured() throws {
        let server = try TestServer(router: Self.makeRouter())
        defer { server.stop() }
        let result = try Curl.run(["-X", "POST", server.url("/media/v1/session/s-123/heartbeat")])
        #expect(result.status == 200)
        let value = try JSONParser.parse(result.body)
        #expect(value.object?["id"]?.string == "s-123")
        #expect(value.object?["route"]?.string == "/media/v1/session/{id}/heartbeat")
        let two = try Curl.run([server.url("/a/one/b/two")])
        #expect(two.text == "one+two")
        let trailing = try Curl.run(["-X", "POST", server.url("/media/v1/session/s-9/heartbeat/")])
        #expect(try JSONParser.parse(trailing.body).object?["id"]?.string == "s-9")
    }

    @Test func literalSegmentWinsOverParameter() throws {
        let server = try TestServer(router: Self.makeRouter())
        defer { server.stop() }
        #expect(try Curl.run([server.url("/media/v1/session/current")]).text == "literal")
        #expect(try Curl.run([server.url("/media/v1/session/other")]).text == "param other")
    }

    @Test func unknownPathIs404WithJSONError() throws {
        let server = try TestServer(router: Self.makeRouter())
        defer { server.stop() }
        for path in ["/nope", "/media/v1", "/media/v1/session/x/heartbeat/extra", "/media/v1/session//heartbeat",
                     "//media/v1/session/x/heartbeat", "/media/v1/session/x//heartbeat"] {
            let result = try Curl.run(["-X", "POST", server.url(path)])
            #expect(result.status == 404, "\(path)")
            #expect(result.text == #"{"error":"not found"}"#)
            #expect(result.header("Content-Type") == "application/json")
        }
    }

    @Test func knownPathWithWrongMethodIs405WithAllow() throws {
        let server = try TestServer(router: Self.makeRouter())
        defer { server.stop() }
        let result = try Curl.run(["-X", "PUT", server.url("/media/v1/session/abc")])
        #expect(result.status == 405)
        #expect(result.text == #"{"error":"method not allowed"}"#)
        let allow = Set((result.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(allow == ["DELETE", "GET", "HEAD"])
        let heartbeat = try Curl.run([server.url("/media/v1/session/abc/heartbeat")])
        #expect(heartbeat.status == 405)
        #expect(heartbeat.header("Allow") == "POST")
    }

    @Test func headUsesTheGetRouteWithoutBody() throws {
        let server = try TestServer(router: Self.makeRouter())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = String(decoding: connection.readAll(), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.lowercased().contains("\r\ncontent-length: 2\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
    }

    @Test func queryItemsAndRemoteAddressReachTheHandler() throws {
        let router = Router<KASRequestContext>()
        router.get("/inspect") { request, context in
            let items = request.queryItems.map { "\($0.name)=\($0.value ?? "<nil>")" }.joined(separator: "&")
            return .text("\(items)|\(request.remoteAddress)|\(context.remoteAddress)|\(request.headers["x-custom"] ?? "")")
        }
        let server = try TestServer(router: router)
        defer { server.stop() }
        let result = try Curl.run(["-H", "X-Custom: yes", server.url("/inspect?algorithm=ec%3Asecp256r1&kid=k1&flag")])
        #expect(result.text == "algorithm=ec:secp256r1&kid=k1&flag=<nil>|127.0.0.1|127.0.0.1|yes")
    }

    @Test func respondersMatchWithoutAServer() {
        let responder = Self.makeRouter().responder()
        var context = KASRequestContext(core: CoreRequestContext())
        let response = responder.respond(to: ServerRequest(method: .delete, path: "/media/v1/session/zz"), context: &context)
        #expect(response.status == .ok)
        #expect(context.route == "/media/v1/session/{id}")
        #expect(context.parameters["id"] == "zz")
        var missing = KASRequestContext(core: CoreRequestContext())
        let notFound = responder.respond(to: ServerRequest(method: .get, path: "/media/v2/x"), context: &missing)
        #expect(notFound.status == .notFound)
        #expect(missing.route == nil)
    }

    @Test func patternsNormaliseSlashes() {
        let router = Router<KASRequestContext>()
        router.group("/media/v1/").get("session/{id}/") { _, _ in .text("x") }
        #expect(router.routeDescriptions == ["GET /media/v1/session/{id}"])
    }
}
