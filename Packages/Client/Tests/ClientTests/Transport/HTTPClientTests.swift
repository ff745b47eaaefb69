import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import Testing
@testable import Client

/// HTTPClient against a real local origin (Tools/python/range_server.py) over plain loopback HTTP.
@Suite struct HTTPClientTransportTests {
    /// One origin for the suite (tests run in parallel; each checks hits only on paths of its own).
    struct Shared: Sendable {
        let root: URL
        let origin: LocalOrigin
        let fileBytes: Data
    }

    static let shared: Result<Shared, TestSupportError> = {
        do {
            let root = try makeTemporaryDirectory()
            let fileBytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })
            try fileBytes.write(to: root.appendingPathComponent("file.bin"))
            try Data("target\n".utf8).write(to: root.appendingPathComponent("target.txt"))
            let origin = try LocalOrigin(root: root, arguments: ["--redirect", "/moved=/target.txt@301", "--status", "/broken=500",
                                                                 "--delay", "/slow=2"])
            return .success(Shared(root: root, origin: origin, fileBytes: fileBytes))
        } catch {
            return .failure(TestSupportError("origin: \(error)"))
        }
    }()

    let root: URL
    let origin: LocalOrigin
    let client: HTTPClient
    let fileBytes: Data

    init() throws {
        let shared = try Self.shared.get()
        root = shared.root
        origin = shared.origin
        fileBytes = shared.fileBytes
        client = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), totalTimeout: .seconds(10)))
    }

    private func echo(_ response: TransportResponse) throws -> JSONObject {
        let value = try JSONParser.parse(response.body)
        return try #require(value.object)
    }

    @Test func getReturnsStatusHeadersAndBody() throws {
        let response = try client.sendSynchronously(TransportRequest(url: origin.url("/file.bin")))
        #expect(response.status == 200)
        #expect(response.body == fileBytes)
        #expect(response.headers["CONTENT-LENGTH"] == "100000")
        #expect(response.headers["content-type"] == "application/octet-stream")
    }

    @Test func asyncGetMatchesSync() async throws {
        let response = try await client.send(TransportRequest(url: origin.url("/file.bin")))
        #expect(response.status == 200)
        #expect(response.body == fileBytes)
    }

    @Test(arguments: [TransportMethod.post, .put, .delete])
    func methodsWithBodyReachTheServer(method: TransportMethod) async throws {
        let body = Data("{\"assetId\":\"a\"}".utf8)
        let credential = try Credential(bearerToken: "eyJhbGciOiJIUzI1NiJ9.e30.sig-_~+/==")
        let response = try await client.send(TransportRequest(
            method: method, url: origin.url("/__echo"), headers: ["Content-Type": "application/json", "X-Trace": "1"],
            body: body, credential: credential))
        let info = try echo(response)
        #expect(try info.requireString("method") == method.rawValue)
        #expect(try info.requireInt64("bodyLength") == Int64(body.count))
        #expect(try info.requireString("bodySHA256") == Hex.encode(SHA256Digest.hash(data: body)))
        #expect(try info.requireString("contentType") == "application/json")
        #expect(try info.requireString("authorization") == "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig-_~+/==")
        // The token appears in no other header.
        for header in try info.requireArray("headers") {
            let pair = try #require(header.array)
            if pair.first?.string?.lowercased() != "authorization" {
                #expect(pair.last?.string?.contains("eyJhbGciOiJIUzI1NiJ9") == false)
            }
        }
    }

    @Test func deleteWithoutBodyAndPostWithEmptyBody() throws {
        let deleted = try echo(try client.sendSynchronously(TransportRequest(method: .delete, url: origin.url("/__echo"))))
        #expect(try deleted.requireString("method") == "DELETE")
        #expect(try deleted.requireInt64("bodyLength") == 0)
        let posted = try echo(try client.sendSynchronously(TransportRequest(method: .post, url: origin.url("/__echo"))))
        #expect(try posted.requireString("method") == "POST")
        #expect(try posted.requireInt64("bodyLength") == 0)
        #expect(posted["contentType"] == .null)
    }

    @Test func headRequestHasNoBody() throws {
        let response = try client.sendSynchronously(TransportRequest(method: .head, url: origin.url("/file.bin")))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["content-length"] == "100000")
        // The announced length of a body that is not sent is not held against the limit.
        let limited = try client.sendSynchronously(TransportRequest(method: .head, url: origin.url("/file.bin"), maxResponseBytes: 10))
        #expect(limited.status == 200)
    }

    @Test func connectTimeoutStopsAHandshakeThatNeverCompletes() async throws {
        let stalled = try LocalOrigin(root: root, arguments: ["--stall"])
        // Only the 300 ms connect timeout can end this call within the bound: the total timeout
        // (600 s) lies far beyond it.
        let impatient = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .milliseconds(300), totalTimeout: .seconds(600)))
        let url = stalled.url("/")
        let error = await finishes(within: .seconds(120), "a request to a server that never completes the handshake") {
            transportError { try impatient.sendSynchronously(TransportRequest(url: url)) }
        }
        #expect(error??.code == .timedOut)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectsAreRefusedAndNeverFollowed(status: Int) throws {
        let credential = try Credential(bearerToken: "secret-token-value")
        let path = "/__redirect/\(status)/redirect-target-\(status).txt"
        try Data("target\n".utf8).write(to: root.appendingPathComponent("redirect-target-\(status).txt"))
        let error = transportError {
            try client.sendSynchronously(TransportRequest(url: origin.url(path), credential: credential))
        }
        #expect(error?.code == .redirectRefused)
        #expect(error?.status == status)
        let hits = try origin.hits(using: client)
        #expect(hits.counts[path] == 1)
        #expect(hits.counts["/redirect-target-\(status).txt"] == nil)
        // One request, and the credential went only there.
        #expect(client.transfersStarted == 2)   // the request and the /__hits query
        #expect(hits.log.filter { $0.path.contains("redirect-target-\(status)") }.map(\.authorization) == [true])
    }

    @Test func configuredRedirectRuleIsRefusedToo() async throws {
        let error = await asyncTransportError { try await client.send(TransportRequest(method: .post, url: origin.url("/moved"), body: Data("x".utf8))) }
        #expect(error?.code == .redirectRefused)
        #expect(error?.status == 301)
        #expect(try origin.hits(using: client).counts["/target.txt"] == nil)
    }

    /// The status and the path say what failed; the query (a signed URL's secrets), the host and
    /// the server's text never appear.
    @Test func errorStatusCarriesStatusAndPathButNeitherServerTextNorQuery() throws {
        let error = try #require(transportError {
            try client.sendSynchronously(TransportRequest(url: origin.url("/broken?token=QUERYSECRET#FRAGMENTSECRET")))
        })
        #expect(error.code == .httpStatus)
        #expect(error.status == 500)
        #expect(error.reason == "the server answered HTTP 500 for /broken")
        for text in [error.description, error.reason, String(reflecting: error)] {
            #expect(!text.contains("QUERYSECRET") && !text.contains("FRAGMENTSECRET"))
            #expect(!text.contains("do-not-echo"))
            #expect(!text.contains("127.0.0.1"))
        }
    }

    @Test func retryAfterIsReportedForRateLimits() throws {
        let error = transportError { try client.sendSynchronously(TransportRequest(url: origin.url("/__status/429"))) }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 429)
        #expect(error?.retryAfterSeconds == 7)
        let notFound = transportError { try client.sendSynchronously(TransportRequest(url: origin.url("/missing"))) }
        #expect(notFound?.status == 404)
        #expect(notFound?.retryAfterSeconds == nil)
    }

    @Test func extraAcceptedStatusIsReturned() throws {
        let response = try client.sendSynchronously(TransportRequest(url: origin.url("/__status/404"), extraAcceptedStatuses: [404]))
        #expect(response.status == 404)
        // 3xx can never be accepted.
        let error = transportError {
            try client.sendSynchronously(TransportRequest(url: origin.url("/__redirect/302/accepted-target.txt"), extraAcceptedStatuses: [302]))
        }
        #expect(error?.code == .redirectRefused)
    }

    @Test(arguments: ["http://192.0.2.1/key", "http://192.0.2.1:8080/media/v1/key-request?x=1", "http://10.0.0.1/",
                      "http://example.com/", "http://127.0.0.1.example.com/", "http://localhost.example/"])
    func plainHTTPToNonLoopbackIsRefusedBeforeConnecting(url: String) async throws {
        let slow = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(20), totalTimeout: .seconds(30)))
        let credential = try Credential(bearerToken: "abc")
        let syncError = transportError { try slow.sendSynchronously(TransportRequest(url: url, credential: credential)) }
        let asyncError = await asyncTransportError { try await slow.send(TransportRequest(method: .post, url: url, body: Data())) }
        #expect(syncError?.code == .insecureURL)
        #expect(asyncError?.code == .insecureURL)
        #expect(syncError?.curlCode == nil)
        // Nothing reached libcurl, so no socket was opened.
        #expect(slow.transfersStarted == 0)
    }

    @Test func urlRules() throws {
        for ok in ["http://127.0.0.1/", "http://127.8.9.10:81/a?b=c", "http://localhost/", "http://LOCALHOST:9/",
                   "http://[::1]:8080/", "https://192.0.2.1/", "https://kas.example.com/x"] {
            #expect(transportError { try TransportURL.validate(ok) } == nil, "\(ok)")
        }
        for insecure in ["http://192.0.2.1/", "http://[::ffff:127.0.0.1]/", "http://128.0.0.1/", "http://0.0.0.0/",
                         "http://[::2]/", "HTTP://192.0.2.1/"] {
            #expect(transportError { try TransportURL.validate(insecure) }?.code == .insecureURL, "\(insecure)")
        }
        for invalid in ["", "ftp://127.0.0.1/", "file:///etc/passwd", "gopher://127.0.0.1/", "not a url", "/relative",
                        "https://user:pass@kas.example.com/", "http://user@127.0.0.1/", "https://kas.example.com/a b",
                        "https://kas.example.com/\u{e9}", "https://kas.example.com/\r\nX: y"] {
            #expect(transportError { try TransportURL.validate(invalid) }?.code == .invalidURL, "\(invalid)")
        }
        #expect(TransportURL.isLoopbackHost("127.255.255.255"))
        #expect(!TransportURL.isLoopbackHost("127.0.0.01"))
        #expect(!TransportURL.isLoopbackHost("127.0.0.256"))
        #expect(!TransportURL.isLoopbackHost("127.0.0"))
    }

    @Test func headersThatCouldInjectOrSmuggleAreRefused() throws {
        let cases: [TransportHeaders] = [
            ["X-A": "ok\r\nAuthorization: Bearer stolen"], ["X-A": "nul\u{0}"], ["Bad Name": "v"], ["": "v"],
            ["Authorization": "Bearer t"], ["authorization": "Basic x"], ["Host": "evil"], ["Content-Length": "0"],
            ["Transfer-Encoding": "chunked"], ["X-A": "caf\u{e9}"],
        ]
        for headers in cases {
            let error = transportError { try client.sendSynchronously(TransportRequest(url: origin.url("/__echo"), headers: headers)) }
            #expect(error?.code == .invalidRequest)
        }
        #expect(transportError { try client.sendSynchronously(TransportRequest(url: origin.url("/__echo"), body: Data("x".utf8))) }?.code == .invalidRequest)
        #expect(client.transfersStarted == 0)
    }

    @Test func credentialNeverPrints() throws {
        let token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ2aWV3ZXIifQ.c2lnbmF0dXJl"
        let credential = try Credential(bearerToken: token)
        var dumped = ""
        dump(credential, to: &dumped)
        let request = TransportRequest(url: "https://kas.example.com/", credential: credential)
        var dumpedRequest = ""
        dump(request, to: &dumpedRequest)
        for text in ["\(credential)", String(describing: credential), String(reflecting: credential), dumped,
                     dumpedRequest, "\(request)"] {
            #expect(!text.contains("eyJ"))
            #expect(!text.contains("c2lnbmF0dXJl"))
        }
        for bad in ["", "a b", "a\r\nb", "tok\u{0}", "caf\u{e9}", "a=b"] {
            #expect(transportError { try Credential(bearerToken: bad) }?.code == .invalidRequest, "\(bad.debugDescription)")
        }
    }

    @Test func totalTimeoutStopsASlowServer() async throws {
        // The server answers after 600 s and the client-wide timeout is 600 s too: only the
        // request's 400 ms timeout can end the call within the bound.
        let patient = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(30), totalTimeout: .seconds(600)))
        let url = origin.url("/__delay/600000/file.bin")
        let error = await finishes(within: .seconds(120), "a request with a 400 ms timeout to a server that answers after 600 s") {
            transportError { try patient.sendSynchronously(TransportRequest(url: url, timeout: .milliseconds(400))) }
        }
        #expect(error??.code == .timedOut)
        let asyncError = await finishes(within: .seconds(120), "the same request through the async API") {
            await asyncTransportError { try await patient.send(TransportRequest(url: url, timeout: .milliseconds(400))) }
        }
        #expect(asyncError??.code == .timedOut)
        let ruled = transportError { try client.sendSynchronously(TransportRequest(url: origin.url("/slow"), timeout: .milliseconds(300))) }
        #expect(ruled?.code == .timedOut)
    }

    @Test func responseLimitAbortsDeclaredAndChunkedBodies() throws {
        for path in ["/__big/2000000", "/__chunked/2000000"] {
            let error = transportError { try client.sendSynchronously(TransportRequest(url: origin.url(path), maxResponseBytes: 100_000)) }
            #expect(error?.code == .responseTooLarge, "\(path)")
        }
        // The client-wide default applies as well; at the limit exactly the body is accepted.
        let small = try HTTPClient(configuration: HTTPClientConfiguration(maxResponseBytes: 65_536))
        #expect(transportError { try small.sendSynchronously(TransportRequest(url: origin.url("/__chunked/65537"))) }?.code == .responseTooLarge)
        #expect(try small.sendSynchronously(TransportRequest(url: origin.url("/__chunked/65536"))).body.count == 65_536)
        #expect(try small.sendSynchronously(TransportRequest(url: origin.url("/__big/65536"))).body.count == 65_536)
    }

    @Test func closedPortFailsToConnect() throws {
        let closed = try LocalOrigin(root: try makeTemporaryDirectory())
        let url = closed.url("/file.bin")
        closed.stop()
        let error = transportError { try client.sendSynchronously(TransportRequest(url: url)) }
        #expect(error?.code == .connectionFailed)
    }

    /// A client whose own timeouts lie far beyond every bound of the cancellation tests, so a
    /// call can only end early by being cancelled; the origin answers `/__delay/600000/...` after
    /// 600 s, unless the client hangs up first (then the origin lists the path in `hangups`).
    private func patientClient() throws -> HTTPClient {
        try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(30), totalTimeout: .seconds(600)))
    }

    @Test func aTaskCancelledBeforeTheCallOpensNoConnection() async throws {
        let patient = try patientClient()
        let path = "/__delay/600000/cancelled-before-\(UUID().uuidString).bin"
        let url = origin.url(path)
        let task = Task { () -> TransportError? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await asyncTransportError { try await patient.send(TransportRequest(url: url)) }
        }
        #expect(await finishes(within: .seconds(120), "the cancelled call") { await task.value }??.code == .cancelled)
        // Nothing reached libcurl, and the origin never saw the request.
        #expect(patient.transfersStarted == 0)
        #expect(try origin.hits(using: client).counts[path] == nil)
    }

    @Test func cancellingDuringTheTransferClosesTheConnection() async throws {
        let patient = try patientClient()
        let path = "/__delay/600000/cancelled-during-\(UUID().uuidString).bin"
        let url = origin.url(path)
        let task = Task { await asyncTransportError { try await patient.send(TransportRequest(url: url)) } }
        // The origin logged the request: the transfer is under way, waiting for the answer.
        await eventually("the origin receiving the request") { (try? origin.hits(using: client))?.counts[path] == 1 }
        task.cancel()
        #expect(await finishes(within: .seconds(120), "the cancelled call") { await task.value }??.code == .cancelled)
        // The client closed the connection: the origin saw the hang-up instead of answering.
        await eventually("the origin seeing the client hang up") { (try? origin.hits(using: client))?.hangups.contains(path) == true }
    }

    /// Cancellation racing the start of the call, at a different point each round (after 0 to 39
    /// yields): every call ends `cancelled`, and every request the origin saw was hung up on.
    @Test func cancellationRacingTheStartOfTheCallAlwaysEndsIt() async throws {
        let patient = try patientClient()
        var paths: [String] = []
        for round in 0..<40 {
            let path = "/__delay/600000/cancelled-racing-\(round)-\(UUID().uuidString).bin"
            paths.append(path)
            let url = origin.url(path)
            let task = Task { await asyncTransportError { try await patient.send(TransportRequest(url: url)) } }
            for _ in 0..<round { await Task.yield() }
            task.cancel()
            #expect(await finishes(within: .seconds(120), "the call cancelled in round \(round)") { await task.value }??.code == .cancelled,
                    "round \(round)")
        }
        await eventually("a hang-up for every request that reached the origin") {
            guard let hits = try? origin.hits(using: client) else { return false }
            return paths.allSatisfy { hits.counts[$0] == nil || hits.hangups.contains($0) }
        }
    }

    @Test func concurrentRequestsFromTasksAndThreads() async throws {
        let client = self.client
        let url = origin.url("/file.bin")
        let expected = fileBytes
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask { (try? await client.send(TransportRequest(url: url)))?.body == expected }
            }
            var all: [Bool] = []
            for await ok in group { all.append(ok) }
            return all
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })

        let flags = ThreadResults(count: 8)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            flags.set(index, (try? client.sendSynchronously(TransportRequest(url: url)))?.body == expected)
        }
        #expect(flags.all)
    }

    @Test func configurationIsValidated() {
        let bad: [HTTPClientConfiguration] = [
            HTTPClientConfiguration(publicKeyPin: "sha1//AAAA"),
            HTTPClientConfiguration(publicKeyPin: "sha256//not base64"),
            HTTPClientConfiguration(publicKeyPin: "sha256//" + Base64.encode(Data(count: 20))),
            HTTPClientConfiguration(publicKeyPin: "sha256//" + Base64.encode(Data(count: 32)) + ";"),
            HTTPClientConfiguration(trustedCertificatesPEM: Data("not a certificate".utf8)),
            HTTPClientConfiguration(totalTimeout: .zero),
            HTTPClientConfiguration(maxResponseBytes: -1),
            HTTPClientConfiguration(userAgent: "a\r\nb"),
        ]
        for configuration in bad {
            #expect(transportError { try HTTPClient(configuration: configuration) }?.code == .invalidConfiguration)
        }
        let twoPins = "sha256//" + Base64.encode(Data(count: 32)) + ";sha256//" + Base64.encode(Data(repeating: 1, count: 32))
        #expect(transportError { try HTTPClient(configuration: HTTPClientConfiguration(publicKeyPin: twoPins)) } == nil)
    }
}

/// Per-thread results of concurrentPerform.
final class ThreadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Bool]
    init(count: Int) { values = Array(repeating: false, count: count) }
    func set(_ index: Int, _ value: Bool) { lock.lock(); values[index] = value; lock.unlock() }
    var all: Bool { lock.lock(); defer { lock.unlock() }; return values.allSatisfy { $0 } }
}
