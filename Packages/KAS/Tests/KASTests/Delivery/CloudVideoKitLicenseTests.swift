import Foundation
@testable import KASDomain
import KASTesting
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import Testing

/// Cloud Video Kit's FairPlay licence request (docs/delivery.md "Cloud Video Kit") against a real
/// `kas serve` and nginx (`DeliveryFixture`) with the FairPlay SDK stand-in answering a CKC. The
/// `skd://` URI is read from the title's served HLS view and the request is built as CVK's iOS
/// example builds it: the configured licence URL with its query replaced by `brandGuid` and the
/// URI's `kid` and `iv`, the tenant in `x-drm-brandGuid`, the viewer's token in `x-drm-usertoken`.
@Suite(.serialized) struct CloudVideoKitLicenseTests {
    static let brand = "b7c1e2d4-5a6f-4b8c-9d0e-1f2a3b4c5d6e"

    @Test func cloudVideoKitRequestGetsTheCKCAndWrongBrandKeyOrTokenIsRefused() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-cvk-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let config = work + "/kas.json"
        try Data(#"{"delivery": {"tenantID": "\#(Self.brand)"}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let fixture = try DeliveryFixture(serveArguments: ["--config", config], fairPlayMode: "answer")
        defer { fixture.stop() }

        // 1. The key URI as the app reads it: the video playlist of the title's HLS view.
        let keyURI = try videoKeyURI(fixture)
        let uri = try #require(SKDKeyURI(servedKey: keyURI))
        #expect(uri.policyUUID == fixture.assetID && uri.componentID == "video" && uri.keyID != nil && uri.iv != nil, "\(keyURI)")
        let contentID = String(keyURI.dropFirst("skd://".count))
        let sdk = try #require(fixture.fairPlaySDK)
        let ckc = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 1) })
        try SDKTransportTestDouble.writeAnswers(in: sdk.directory, ckc: ckc, spcAssetID: contentID)

        // 2. The request exactly as CVK's licenseRequestURL(for:) and acquireLicense build it; a
        // stale token on the configured URL is dropped with the rest of its query.
        let alice = try fixture.token("alice")
        let startsBefore = starts(fixture)
        let url = try licenseRequestURL(fixture.kas.address + "/media/v1/cloud-video-kit/license?usertoken=stale",
                                        brand: Self.brand, keyURI: keyURI)
        let spc = Data((0..<180).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let raw = try post(fixture, url, spc: spc, brand: Self.brand, token: alice)
        #expect(raw.status == 200, "\(raw.text)")
        #expect(raw.body == ckc)
        #expect(raw.header("Content-Type") == "application/octet-stream")
        let json = try post(fixture, url, spc: spc, brand: Self.brand, token: alice, extra: ["Accept: application/json"])
        #expect(json.status == 200, "\(json.text)")
        #expect(try JSONParser.parse(json.body).object?["ckc"]?.string == Base64.encode(ckc))
        // The same token's second SPC reuses the playback its first started.
        #expect(starts(fixture) == startsBefore + 1)

        // 3. Another brand, or query and header that disagree.
        let other = try licenseRequestURL(fixture.kas.address + "/media/v1/cloud-video-kit/license", brand: "another-brand", keyURI: keyURI)
        for (target, header) in [(other, "another-brand"), (url, "another-brand"), (other, Self.brand)] {
            let refused = try post(fixture, target, spc: spc, brand: header, token: alice)
            #expect(refused.status == 403 && reason(refused) == "brand_refused", "\(refused.text)")
        }

        // 4. A kid no title has, an IV that is not the title's, items that are not 16 bytes of hex.
        let kid = Hex.encode(try #require(uri.keyID)), iv = Hex.encode(try #require(uri.iv))
        let flipped = { (hex: String) in String(hex.dropLast()) + (hex.hasSuffix("0") ? "1" : "0") }
        let cases: [(String, String, Int, String?)] = [
            (flipped(kid), iv, 403, "key_id_unknown"), (kid, flipped(iv), 403, "key_iv_mismatch"),
            (String(kid.dropLast(2)), iv, 400, nil), (kid, "zz" + iv.dropFirst(2), 400, nil),
        ]
        for (kidItem, ivItem, status, code) in cases {
            let target = fixture.kas.address + "/media/v1/cloud-video-kit/license?brandGuid=\(Self.brand)&kid=\(kidItem)&iv=\(ivItem)"
            let refused = try post(fixture, target, spc: spc, brand: Self.brand, token: alice)
            #expect(refused.status == status && (code == nil || reason(refused) == code), "\(kidItem) \(ivItem): \(refused.text)")
        }

        // 5. No user token, an invalid one, or a bearer in Authorization instead: 401.
        for token in [nil, alice + "x"] {
            let refused = try post(fixture, url, spc: spc, brand: Self.brand, token: token)
            #expect(refused.status == 401, "\(refused.text)")
        }
        let bearerOnly = try fixture.request("POST", url, token: alice, body: spc, headers: ["x-drm-brandGuid: \(Self.brand)"])
        #expect(bearerOnly.status == 401, "\(bearerOnly.text)")
        let twoTokens = try post(fixture, url, spc: spc, brand: Self.brand, token: alice, extra: ["x-drm-usertoken: \(alice)"])
        #expect(twoTokens.status == 401, "\(twoTokens.text)")

        // 6. An SPC made for another IV (its content id's `iv` item, as the SDK reads it) gets no
        // CKC even with a request that names the right one: the key request refuses it.
        let otherIV = String(contentID.dropLast()) + (contentID.hasSuffix("0") ? "1" : "0")
        try SDKTransportTestDouble.writeAnswers(in: sdk.directory, ckc: ckc, spcAssetID: otherIV)
        let mismatched = try post(fixture, url, spc: spc, brand: Self.brand, token: alice)
        #expect(mismatched.status == 403 && mismatched.body != ckc, "\(mismatched.text)")
        #expect(fixture.writtenLogs.contains("spc_asset_mismatch"))

        // 7. The token is in no log line, nor its signature.
        let logs = fixture.writtenLogs
        #expect(!logs.contains(alice) && !logs.contains(String(alice.split(separator: ".").last ?? "")), "the user token is in the logs")
    }

    /// The `URI` of the first FairPlay `EXT-X-KEY` of the title's `video.m3u8` view, served to a
    /// ClearKey playback of another viewer (so alice's stream is not taken).
    func videoKeyURI(_ fixture: DeliveryFixture) throws -> String {
        let started = try fixture.post("/media/v1/playback", token: try fixture.token("carol"), json: [
            ("assetId", .string(fixture.assetID)), ("drmSystem", .string("clearkey")), ("manifestTypes", .array([.string("hls")])),
        ])
        try #require(started.status == 200, "\(started.text)")
        let hls = try #require(try JSONParser.parse(started.body).object?["hlsUrl"]?.string)
        let playlist = try fixture.request("GET", hls.replacingOccurrences(of: "master.m3u8", with: "video.m3u8"))
        try #require(playlist.status == 200, "\(playlist.text)")
        let line = try #require(playlist.text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-KEY:METHOD=SAMPLE-AES,") })
        let start = try #require(line.range(of: #"URI=""#)?.upperBound)
        return String(line[start...].prefix { $0 != "\"" })
    }

    /// CVK's `licenseRequestURL(for:)`: the configured URL's query replaced by `brandGuid` plus
    /// only the `kid` and `iv` items of the key URI.
    func licenseRequestURL(_ configured: String, brand: String, keyURI: String) throws -> String {
        var components = try #require(URLComponents(string: configured))
        var items = [URLQueryItem(name: "brandGuid", value: brand)]
        for item in URLComponents(string: keyURI)?.queryItems ?? [] where ["kid", "iv"].contains(item.name.lowercased()) {
            items.append(item)
        }
        components.queryItems = items
        return try #require(components.url?.absoluteString)
    }

    /// CVK's `acquireLicense`: the raw SPC, `x-drm-brandGuid` and `x-drm-usertoken`.
    func post(_ fixture: DeliveryFixture, _ url: String, spc: Data, brand: String, token: String?,
              extra: [String] = []) throws -> CurlResult {
        var headers = ["Content-Type: application/octet-stream", "x-drm-brandGuid: \(brand)"] + extra
        if let token { headers.append("x-drm-usertoken: \(token)") }
        return try fixture.request("POST", url, body: spc, headers: headers)
    }

    /// The playback starts allowed so far (audit and log lines).
    func starts(_ fixture: DeliveryFixture) -> Int {
        fixture.writtenLogs.split(separator: "\n").filter { $0.contains(#""playback_start""#) && $0.contains(#""allow""#) }.count
    }

    func reason(_ result: CurlResult) -> String? { (try? JSONParser.parse(result.body))?.object?["reason"]?.string }
}
