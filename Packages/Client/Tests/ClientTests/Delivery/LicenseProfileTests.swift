import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing
@testable import Client

/// Each FairPlay licence-server profile against `delivery_stub.py` speaking its dialect
/// (docs/fairplay.md "License-server profiles"): the requests it builds, byte for byte (method,
/// path, query, headers, body), every certificate and CKC form it must read, and a redirect
/// from any of them refused without being followed.
@Suite struct LicenseProfileTests {
    static let shared = Result { try DeliveryStub(arguments: ["--token", "customer-token"]) }

    let stub: DeliveryStub
    let client: HTTPClient

    init() throws {
        stub = try Self.shared.get()
        client = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), totalTimeout: .seconds(20)))
    }

    /// The stub's certificate and its CKC rule: b"ckc:" + SHA-256(SPC).
    static let certificate = Data((0x30..<0x90).map { UInt8($0) })
    static func ckc(for spc: Data) -> Data { Data("ckc:".utf8) + SHA256Digest.hash(data: spc) }

    /// A fresh SPC, so each test finds its own requests in the shared stub's log.
    static func spc() -> Data { Data("spc-".utf8) + Data(UUID().uuidString.utf8) + Data([0x00, 0xFF, 0x0D, 0x0A]) }

    /// The one recorded request whose body is `body`.
    func recorded(body: Data) throws -> DeliveryStub.Request {
        let matching = try stub.requests(using: client).filter { $0.body == body }
        return try #require(matching.count == 1 ? matching.first : nil)
    }

    /// The request headers a test controls: everything but the transport's own framing and
    /// identification (Host, User-Agent, Content-Length).
    func sentHeaders(_ request: DeliveryStub.Request) -> [String] {
        request.headers.filter { !["host", "user-agent", "content-length"].contains($0.name.lowercased()) }
            .map { "\($0.name): \($0.value)" }
    }

    // MARK: JW

    @Test func jwSendsTheRawSPCAndReadsTheRawCKC() async throws {
        let profile = JWLicenseProfile(processSPCURL: stub.url("/jw/license"), certificateURL: stub.url("/jw/certificate"))
        let license = FairPlayLicenseClient(profile: profile, client: client)
        #expect(try await license.certificate() == Self.certificate)
        let spc = Self.spc()
        #expect(try await license.ckc(keyURI: "skd://asset-1", spc: spc) == Self.ckc(for: spc))

        let sent = try recorded(body: spc)
        #expect(sent.method == "POST")
        #expect(sent.target == "/jw/license")
        #expect(sentHeaders(sent) == ["Accept: */*", "Content-Type: application/octet-stream"])
        #expect(sent.header("authorization") == nil)
    }

    @Test func jwProfileComesFromTheDeliverySourceByDRMSystem() throws {
        let body = Data("""
            {"playlist":[{"mediaid":"m","sources":[
              {"file":"https://cdn.example/a.m3u8","type":"application/vnd.apple.mpegurl","drm":{"org.w3.clearkey":{"licenseUrl":"https://l.example/ck"}}},
              {"file":"https://cdn.example/b.m3u8","type":"application/vnd.apple.mpegurl","drm":{"fairplay":{"processSpcUrl":"https://l.example/spc?t=1","certificateUrl":"https://l.example/cert"}}}]}]}
            """.utf8)
        let source = try DeliveryDescription(json: body).source(for: .fairplay)
        let profile = try JWLicenseProfile(source: source)
        #expect(profile.processSPCURL == "https://l.example/spc?t=1")
        #expect(profile.certificateURL == "https://l.example/cert")
        #expect(source.file == "https://cdn.example/b.m3u8")
    }

    // MARK: Cloud Video Kit

    func cloudVideoKit(certificate: String = "/cvk/certificate/der", acceptsJSON: Bool = false) -> CloudVideoKitLicenseProfile {
        CloudVideoKitLicenseProfile(licenseURL: stub.url("/cvk/license?usertoken=stale&brandGuid=old#frag"),
                                    certificateURL: stub.url(certificate), brandGUID: "tenant-42",
                                    userToken: "eyJ.user-token.sig", acceptsJSON: acceptsJSON)
    }

    static let cvkKeyURI = "skd://fps.example/key?KID=0a1b2c3d&foo=bar&iv=00ff%2B1&usertoken=evil"

    @Test func cloudVideoKitRebuildsTheQueryAndSendsTheTenantAndUserTokenHeaders() async throws {
        let license = FairPlayLicenseClient(profile: cloudVideoKit(), client: client)
        let spc = Self.spc()
        #expect(try await license.ckc(keyURI: Self.cvkKeyURI, spc: spc) == Self.ckc(for: spc))

        let sent = try recorded(body: spc)
        #expect(sent.method == "POST")
        // Host and path from the configured URL; the query is brandGuid then only kid and iv
        // from the skd:// URI, in its order and spelling; everything else dropped.
        #expect(sent.target == "/cvk/license?brandGuid=tenant-42&KID=0a1b2c3d&iv=00ff%2B1")
        #expect(sentHeaders(sent) == ["Accept: */*", "Content-Type: application/octet-stream", "x-drm-brandGuid: tenant-42",
                                      "x-drm-usertoken: eyJ.user-token.sig"])
        #expect(sent.header("authorization") == nil)
    }

    @Test func cloudVideoKitReadsTheJSONCKCWhenItAskedForJSON() async throws {
        let license = FairPlayLicenseClient(profile: cloudVideoKit(acceptsJSON: true), client: client)
        let spc = Self.spc()
        #expect(try await license.ckc(keyURI: Self.cvkKeyURI, spc: spc) == Self.ckc(for: spc))
        let sent = try recorded(body: spc)
        #expect(sentHeaders(sent) == ["Content-Type: application/octet-stream", "x-drm-brandGuid: tenant-42",
                                      "x-drm-usertoken: eyJ.user-token.sig", "Accept: application/json"])
    }

    @Test(arguments: ["/cvk/certificate/der", "/cvk/certificate/base64", "/cvk/certificate/pem"])
    func cloudVideoKitAcceptsTheCertificateAsDERBase64OrPEM(path: String) async throws {
        let license = FairPlayLicenseClient(profile: cloudVideoKit(certificate: path), client: client)
        #expect(try await license.certificate() == Self.certificate)
    }

    @Test func cloudVideoKitRefusesACertificateThatIsNoneOfThem() throws {
        let garbage = TransportResponse(status: 200, headers: TransportHeaders(), body: Data("not a certificate!".utf8))
        #expect(throws: PlaybackError(.malformed, "")) { try cloudVideoKit().certificate(from: garbage) }
        let badJSON = TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"ckc":"***"}"#.utf8))
        #expect(throws: PlaybackError(.malformed, "")) { try cloudVideoKit(acceptsJSON: true).ckc(from: badJSON) }
    }

    @Test func cloudVideoKitRefusesAKeyURIThatIsNotSKD() {
        #expect(throws: PlaybackError(.invalidSource, "")) {
            try cloudVideoKit().licenseRequest(keyURI: "https://fps.example/key?kid=1", spc: Data([1]))
        }
    }

    @Test func cloudVideoKitNeverShowsTheUserToken() {
        let profile = cloudVideoKit()
        #expect(!"\(profile)".contains("user-token"))
        #expect(!String(reflecting: profile).contains("user-token"))
    }

    // MARK: DRM-X

    @Test func drmxAsksTheCustomerEndpointThenExchangesRawBytesAndReleases() async throws {
        let endpoint = DRMXLicenseProfile.Endpoint(url: stub.url("/drmx/playback-session"), customerHeaders: ["X-Tenant": "t-9"],
                                                   customerCredential: try Credential(bearerToken: "customer-token"))
        let contentID = "course-12-lesson-\(UUID().uuidString)"
        let profile = try await FairPlayLicenseClient.drmxSession(endpoint, contentID: contentID, client: client)
        let license = FairPlayLicenseClient(profile: profile, client: client)
        #expect(try await license.certificate() == Self.certificate)
        let spc = Self.spc()
        #expect(try await license.ckc(keyURI: "skd://lesson", spc: spc) == Self.ckc(for: spc))
        try await FairPlayLicenseClient.release(profile, client: client)

        let log = try stub.requests(using: client)
        let session = try #require(log.first { $0.path == "/drmx/playback-session" && String(decoding: $0.body, as: UTF8.self).contains(contentID) })
        #expect(session.method == "POST")
        #expect(String(decoding: session.body, as: UTF8.self)
                == #"{"clientPlatform":"ios","contentId":"\#(contentID)","contentType":"vod","drmSystem":"fairplay","manifestTypes":["hls"]}"#)
        #expect(sentHeaders(session) == ["Accept: */*", "Content-Type: application/json", "X-Tenant: t-9",
                                         "Authorization: Bearer customer-token"])
        let licence = try recorded(body: spc)
        #expect(licence.target == "/drmx/license?grant=\(profile.session.playbackID)")
        #expect(sentHeaders(licence) == ["Accept: */*", "Content-Type: application/octet-stream"])
        let release = try #require(log.first { $0.method == "DELETE" && $0.path == "/drmx/release/\(profile.session.playbackID)" })
        #expect(sentHeaders(release) == ["Accept: */*", "X-Tenant: t-9", "Authorization: Bearer customer-token"])
        // Order: session, certificate, licence, release.
        let order = log.compactMap { request -> String? in
            guard request.path.hasPrefix("/drmx/") else { return nil }
            if request.path == "/drmx/playback-session" { return String(decoding: request.body, as: UTF8.self).contains(contentID) ? "session" : nil }
            if request.path == "/drmx/license" { return request.body == spc ? "license" : nil }
            if request.path == "/drmx/release/\(profile.session.playbackID)" { return "release" }
            return nil
        }
        #expect(order == ["session", "license", "release"])
    }

    @Test func drmxWithoutTheCustomerBearerIsRefusedAndNamesNoToken() async throws {
        let endpoint = DRMXLicenseProfile.Endpoint(url: stub.url("/drmx/playback-session"),
                                                   customerCredential: try Credential(bearerToken: "wrong-token"))
        do {
            _ = try await FairPlayLicenseClient.drmxSession(endpoint, contentID: "c", client: client)
            Issue.record("a session was granted to a wrong bearer")
        } catch {
            #expect(error.code == .unauthorized)
            #expect(!error.description.contains("wrong-token"))
        }
    }

    // MARK: Ours

    @Test func oursSendsTheSPCOnTheComponentsSessionWithTheBearer() async throws {
        let asset = "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"
        let profile = KASLicenseProfile(baseURL: stub.url("/"), credential: try Credential(bearerToken: "customer-token"),
                                        assetID: asset, manifest: Data("{\"m\":1}".utf8), sessionIDs: ["video": "sess-v", "audio": "sess-a"])
        let license = FairPlayLicenseClient(profile: profile, client: client)
        #expect(try await license.certificate() == Self.certificate)
        let spc = Self.spc()
        #expect(try await license.ckc(keyURI: "skd://\(asset)/audio", spc: spc) == Self.ckc(for: spc))

        let body = #"{"assetId":"\#(asset)","component":"audio","sessionId":"sess-a","spcData":"\#(Base64.encode(spc))","tdfManifest":"eyJtIjoxfQ=="}"#
        let sent = try recorded(body: Data(body.utf8))
        #expect(sent.method == "POST")
        #expect(sent.target == "/media/v1/key-request")
        #expect(sentHeaders(sent) == ["Accept: */*", "Content-Type: application/json", "Authorization: Bearer customer-token"])
        let certificate = try #require(try stub.requests(using: client).last { $0.path == "/media/v1/certificate" })
        #expect(certificate.header("authorization") == nil)
        // A key URI naming another asset or a component without a session goes nowhere.
        #expect(throws: PlaybackError(.invalidSource, "")) {
            try profile.licenseRequest(keyURI: "skd://\(asset)/subtitles", spc: spc)
        }
    }

    // MARK: Redirects

    @Test func everyProfileRefusesARedirectAndNeverFollowsIt() async throws {
        let credential = try Credential(bearerToken: "customer-token")
        let profiles: [any FairPlayLicenseProfile] = [
            KASLicenseProfile(baseURL: stub.url("/redirect"), credential: credential, assetID: "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11",
                              manifest: Data("{}".utf8), sessionIDs: ["video": "s"]),
            JWLicenseProfile(processSPCURL: stub.url("/redirect/jw"), certificateURL: stub.url("/redirect/jw-cert")),
            CloudVideoKitLicenseProfile(licenseURL: stub.url("/redirect/cvk"), certificateURL: stub.url("/redirect/cvk-cert"),
                                        brandGUID: "b", userToken: "u"),
        ]
        for profile in profiles {
            let license = FairPlayLicenseClient(profile: profile, client: client)
            let spc = Self.spc()
            for attempt in 0..<2 {
                do {
                    if attempt == 0 {
                        _ = try await license.certificate()
                    } else {
                        let keyURI = profile is KASLicenseProfile ? "skd://5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11/video"
                            : "skd://5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11/video?kid=1&iv=2"
                        _ = try await license.ckc(keyURI: keyURI, spc: spc)
                    }
                    Issue.record("\(type(of: profile)) followed or accepted a redirect")
                } catch {
                    #expect(error.code == .transport, "\(type(of: profile))")
                    #expect(error.status == 302)
                    #expect(error.reason.contains("redirect"))
                }
            }
            // The redirect target was never asked for this SPC.
            #expect(try stub.requests(using: client).filter { $0.path == "/jw/license" && $0.body == spc }.isEmpty)
        }
        let endpoint = DRMXLicenseProfile.Endpoint(url: stub.url("/redirect/drmx"), customerCredential: credential)
        do {
            _ = try await FairPlayLicenseClient.drmxSession(endpoint, contentID: "c", client: client)
            Issue.record("the DRM-X session followed a redirect")
        } catch {
            #expect(error.code == .transport)
            #expect(error.status == 302)
        }
    }

    // MARK: The profile-driven key session (what the AVFoundation adapter forwards to)

    @Test func profileKeySessionFetchesTheCertificateOnceAndHandsBackEachCKC() async throws {
        let certificatePath = "/jw/certificate?session=\(UUID().uuidString)"
        let profile = JWLicenseProfile(processSPCURL: stub.url("/jw/license"), certificateURL: stub.url(certificatePath))
        let recorder = ReportRecorder()
        let session = FairPlayProfileKeySession(license: FairPlayLicenseClient(profile: profile, client: client), expectedKeys: 2,
                                                delegate: recorder)
        let video = FakeKeyRequest(name: "video-\(UUID().uuidString)", keyIdentifier: "skd://title-7/video")
        let audio = FakeKeyRequest(name: "audio-\(UUID().uuidString)", keyIdentifier: "skd://title-7/audio")
        await session.provide(video, renewal: false)
        await session.provide(audio, renewal: false)
        #expect(video.responses == [.ckc(Self.ckc(for: Data("spc-\(video.name)".utf8)))])
        #expect(audio.responses == [.ckc(Self.ckc(for: Data("spc-\(audio.name)".utf8)))])
        // The SPC is made for the bytes after skd://, with the certificate from the service.
        #expect(video.spcRequests.map(\.contentIdentifier) == [Data("title-7/video".utf8)])
        #expect(audio.spcRequests.map(\.certificate) == [Self.certificate])
        #expect(try stub.requests(using: client).filter { $0.target == certificatePath }.count == 1)
        // Delivered only once both were accepted by AVFoundation.
        session.succeeded(video)
        #expect(recorder.reports.isEmpty)
        session.succeeded(audio)
        #expect(recorder.reports == ["delivered skd://title-7/video,skd://title-7/audio"])
    }

    @Test func profileKeySessionAnswersARefusedLicenceWithAnErrorAndReportsItOnce() async throws {
        let profile = JWLicenseProfile(processSPCURL: stub.url("/redirect/jw"), certificateURL: stub.url("/jw/certificate"))
        let recorder = ReportRecorder()
        let session = FairPlayProfileKeySession(license: FairPlayLicenseClient(profile: profile, client: client), delegate: recorder)
        let request = FakeKeyRequest(name: "r", keyIdentifier: "skd://title-7/video")
        let notSKD = FakeKeyRequest(name: "n", keyIdentifier: "https://title-7/video")
        await session.provide(request, renewal: false)
        await session.provide(notSKD, renewal: false)
        #expect(request.responses == [.failure(PlaybackError(.transport, ""))])
        #expect(notSKD.responses == [.failure(PlaybackError(.invalidSource, ""))])
        #expect(recorder.reports == ["failed transport"])
    }
}
