import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Synchronization
import Testing

@Suite("Metrics")
struct HTTPMetricsTests {
    @Test func requestsAreCountedByRoutePatternAndStatus() throws {
        let metrics = Metrics()
        let router = Router<KASRequestContext>()
        router.add(middleware: MetricsMiddleware(metrics: metrics)).add(middleware: ErrorMiddleware())
        router.post("/session/{id}/heartbeat") { _, _ in .json(["ok": true]) }
        router.get("/metrics") { _, _ in .bytes(Data(metrics.render().utf8), contentType: Metrics.contentType) }
        let server = try TestServer(router: router)
        defer { server.stop() }
        for id in ["a", "b", "c"] { _ = try Curl.run(["-X", "POST", server.url("/session/\(id)/heartbeat")]) }
        _ = try Curl.run([server.url("/session/a/heartbeat")])
        _ = try Curl.run([server.url("/nothing-here")])

        #expect(metrics.requestCount(route: "/session/{id}/heartbeat", status: HTTPStatus.ok.code) == 3)
        #expect(metrics.requestCount(route: "/session/{id}/heartbeat", status: HTTPStatus.methodNotAllowed.code) == 1)
        #expect(metrics.requestCount(route: "unmatched", status: HTTPStatus.notFound.code) == 1)

        let scraped = try Curl.run([server.url("/metrics")])
        #expect(scraped.status == 200)
        #expect(scraped.header("Content-Type") == Metrics.contentType)
        let text = scraped.text
        #expect(text.contains("# TYPE kas_http_requests_total counter\n"))
        #expect(text.contains(#"kas_http_requests_total{route="/session/{id}/heartbeat",method="POST",status="200"} 3"#))
        #expect(text.contains(#"kas_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(text.contains("# TYPE kas_http_request_duration_seconds histogram\n"))
        #expect(text.contains(#"kas_http_request_duration_seconds_bucket{route="/session/{id}/heartbeat",le="+Inf"} 4"#))
        #expect(text.contains(#"kas_http_request_duration_seconds_count{route="/session/{id}/heartbeat"} 4"#))
        #expect(!text.contains("/session/a/"))
    }

    @Test func histogramBucketsAreCumulative() {
        let metrics = Metrics(namespace: "t", latencyBuckets: [0.01, 0.1, 1])
        metrics.recordRequest(route: "/r", method: "GET", status: 200, latency: .milliseconds(5))
        metrics.recordRequest(route: "/r", method: "GET", status: 200, latency: .milliseconds(50))
        metrics.recordRequest(route: "/r", method: "GET", status: 200, latency: .milliseconds(500))
        metrics.recordRequest(route: "/r", method: "GET", status: 200, latency: .seconds(5))
        let text = metrics.render()
        #expect(text.contains(#"t_http_request_duration_seconds_bucket{route="/r",le="0.01"} 1"#))
        #expect(text.contains(#"t_http_request_duration_seconds_bucket{route="/r",le="0.1"} 2"#))
        #expect(text.contains(#"t_http_request_duration_seconds_bucket{route="/r",le="1"} 3"#))
        #expect(text.contains(#"t_http_request_duration_seconds_bucket{route="/r",le="+Inf"} 4"#))
        #expect(text.contains(#"t_http_request_duration_seconds_sum{route="/r"} 5.555"#))
        #expect(text.contains(#"t_http_requests_total{route="/r",method="GET",status="200"} 4"#))
    }

    @Test func namedCountersRenderWithEscapedLabels() {
        let metrics = Metrics()
        metrics.increment("key_decisions_total", help: "Key decisions by result.", labels: [("result", "permit")])
        metrics.increment("key_decisions_total", help: "Key decisions by result.", labels: [("result", "deny")], by: 2)
        metrics.increment("odd_total", help: "Odd.", labels: [("v", "a\"b\\c\nd")])
        #expect(metrics.counterValue("key_decisions_total", labels: [("result", "deny")]) == 2)
        let text = metrics.render()
        #expect(text.contains("# TYPE kas_key_decisions_total counter\n"))
        #expect(text.contains(#"kas_key_decisions_total{result="deny"} 2"#))
        #expect(text.contains(#"kas_key_decisions_total{result="permit"} 1"#))
        #expect(text.contains(#"kas_odd_total{v="a\"b\\c\nd"} 1"#))
    }

    @Test func observedCountersAreReadAtEachRender() {
        let metrics = Metrics()
        let refused = Atomic<Int>(0)
        metrics.observeCounter("http_connections_refused_total", help: "Refused.") { refused.load(ordering: .relaxed) }
        #expect(metrics.render().contains("# TYPE kas_http_connections_refused_total counter\nkas_http_connections_refused_total 0\n"))
        refused.store(3, ordering: .relaxed)
        #expect(metrics.render().contains("kas_http_connections_refused_total 3\n"))
        // Registering the name again replaces the source: one series, never two.
        metrics.observeCounter("http_connections_refused_total", help: "Refused.") { 7 }
        let text = metrics.render()
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("kas_http_connections_refused_total ") } == ["kas_http_connections_refused_total 7"])
        #expect(text.contains("kas_http_connections_refused_total 7\n"))
    }
}
