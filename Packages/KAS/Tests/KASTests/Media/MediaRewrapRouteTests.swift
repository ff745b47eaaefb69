import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Testing

/// `POST /media/v1/rewrap` on the whole KAS over real HTTP (`KASTestHarness`, dev-issuer
/// tokens): the body's shape and bound, the session's path, the rate limit counting requests,
/// and what the audit log keeps. The media rules themselves are tested end to end (Tests-E2E
/// `MediaRewrapTests`) and by `MediaRuleEvaluatorTests`.
@Suite struct MediaRewrapRouteTests {
    static let attribute = "https://example.com/attr/tier/value/gold"

    /// Segment keys of one synthetic tdf-hls stream, wrapped to the harness's RSA key under one
    /// policy with media rules, bound as the packager binds them.
    struct Stream {
        let uuid = UUID().uuidString.lowercased()
        let policy: String
        let keys: [SecretKey]
        let objects: [KeyAccessObject]

        init(_ kas: KASTestHarness, count: Int) throws {
            let rules = try JSONParser.parse(Data(#"{"v":1,"maxConcurrentStreams":4}"#.utf8))
            policy = TDFPolicy(uuid: uuid, dataAttributes: [MediaRewrapRouteTests.attribute], media: rules).base64
            let kasKey = try KASPublicKey(pemRepresentation: kas.rsaPublicKeyPEM)
            var keys: [SecretKey] = [], objects: [KeyAccessObject] = []
            for _ in 0..<count {
                let key = try SecretKey(size: .bits256)
                keys.append(key)
                objects.append(try KeyAccessObject.wrapping(key, to: kasKey, kasURL: kas.publicURL, policyBase64: policy))
            }
            self.keys = keys
            self.objects = objects
        }

        func body(session: String, clientKey: String, count: Int? = nil) -> JSONValue {
            let objects = self.objects.prefix(count ?? self.objects.count).enumerated().map { index, object in
                JSONValue.object(JSONObject([("keyAccessObject", object.jsonValue), ("keyAccessObjectId", .string("s\(index)"))]))
            }
            let request = JSONValue.object(JSONObject([
                ("algorithm", .string("ec:secp256r1")), ("keyAccessObjects", .array(Array(objects))),
                ("policy", .object(JSONObject([("body", .string(policy)), ("id", .string("policy-0"))]))),
            ]))
            return MediaRewrapBody(sessionID: session, clientPublicKeyPEM: clientKey, requests: [request]).jsonValue
        }
    }

    static func post(_ kas: KASTestHarness, _ path: String, token: String, _ body: JSONValue) throws -> CurlResult {
        try Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(token)",
                      "--data-binary", "@-", kas.url(path)], stdin: JSONWriter.write(body, options: [.sortedKeys]))
    }

    static func session(_ kas: KASTestHarness, token: String, asset: String, protocol: String = "tdf",
                        rendition: String? = "video") throws -> String {
        var members: [(String, JSONValue)] = [("assetId", .string(asset)), ("protocol", .string(`protocol`))]
        if let rendition { members.append(("component", .string(rendition))) }
        let started = try post(kas, "/media/v1/session/start", token: token, .object(JSONObject(members)))
        return try #require(try JSONParser.parse(started.body).object?["sessionId"]?.string, "\(started.text)")
    }

    @Test func deliversEveryKeyAndRefusesMalformedOversizedAndOtherPathRequests() throws {
        let kas = try KASTestHarness()
        defer { kas.stop() }
        let token = try kas.token(sub: "rewrap-route", entitlements: [Self.attribute])
        let stream = try Stream(kas, count: 513)
        let session = try Self.session(kas, token: token, asset: stream.uuid)
        let client = try ECP256.KeyAgreement.PrivateKey()
        let pem = client.publicKey.pemRepresentation

        // Two keys, each opening with the client key and the answer's session key.
        let granted = try Self.post(kas, "/media/v1/rewrap", token: token, stream.body(session: session, clientKey: pem, count: 2))
        #expect(granted.status == 200, "\(granted.text)")
        let answer = try #require(try JSONParser.parse(granted.body).object)
        let sessionKey = try ECP256.KeyAgreement.PublicKey(pemRepresentation: try #require(answer["sessionPublicKey"]?.string))
        let results = try #require(answer["responses"]?.array?.first?.object?["results"]?.array)
        #expect(results.count == 2)
        for (index, result) in results.enumerated() {
            let object = try #require(result.object)
            #expect(object["keyAccessObjectId"]?.string == "s\(index)" && object["status"]?.string == "permit")
            let wrapped = try Base64.decode(try #require(object["kasWrappedKey"]?.string))
            #expect(try ECWrap.unwrap(wrapped, ephemeralPublicKey: sessionKey, with: client) == stream.keys[index])
        }

        // Shapes: an unknown member, no bulk request, an RSA client key, one object over the bound.
        var unknown = stream.body(session: session, clientKey: pem, count: 1)
        if case .object(let object) = unknown { unknown = .object(JSONObject(Array(object) + [("assetId", .string(stream.uuid))])) }
        let shapes = [
            unknown,
            MediaRewrapBody(sessionID: session, clientPublicKeyPEM: pem, requests: []).jsonValue,
            stream.body(session: session, clientKey: try RSA.PrivateKey(keySize: 2048).publicKey.pemRepresentation, count: 1),
        ]
        for body in shapes {
            let refused = try Self.post(kas, "/media/v1/rewrap", token: token, body)
            #expect(refused.status == 400 && refused.text.contains("malformed rewrap request"), "\(refused.text)")
        }
        let oversized = try Self.post(kas, "/media/v1/rewrap", token: token, stream.body(session: session, clientKey: pem))
        #expect(oversized.status == 413 && oversized.text.contains("at most 512"), "\(oversized.text)")

        // A FairPlay session of the asset, one that named no rendition, and another viewer's: no key.
        let fairPlay = try Self.session(kas, token: token, asset: stream.uuid, protocol: "fairplay")
        let unbound = try Self.session(kas, token: token, asset: stream.uuid, rendition: nil)
        let other = try Self.session(kas, token: try kas.token(sub: "rewrap-other", entitlements: [Self.attribute]), asset: stream.uuid)
        for id in [fairPlay, unbound, other] {
            let refused = try Self.post(kas, "/media/v1/rewrap", token: token, stream.body(session: id, clientKey: pem, count: 1))
            #expect(refused.status == 403 && refused.text.contains("manifest refused") && !refused.text.contains("kasWrappedKey"))
        }

        // The audit log has one line per request, and neither the session ids nor any key.
        let audit = try String(contentsOfFile: kas.dataDirectory + "/audit.log", encoding: .utf8)
        let lines = audit.split(separator: "\n").filter { $0.contains(#""event":"media_rewrap""#) }
        #expect(lines.count == 8)
        #expect(lines.first?.contains(#""reason":"keys_delivered""#) == true)
        #expect(audit.contains("too_many_key_access_objects") && audit.contains("session_protocol_mismatch")
                && audit.contains("session_component_mismatch") && audit.contains("session_invalid"))
        for secret in [session, fairPlay, unbound, other, token] { #expect(!audit.contains(secret)) }
    }

    /// The viewer's key-request bucket counts rewrap requests, not key access objects: three
    /// requests of 200 keys pass a limit of three a minute, the fourth is refused 429.
    @Test func theRateLimitCountsRequests() throws {
        let kas = try KASTestHarness(configure: { $0.rateLimits.keyRequestsPerMinute = 3 })
        defer { kas.stop() }
        let token = try kas.token(sub: "rewrap-rate", entitlements: [Self.attribute])
        let stream = try Stream(kas, count: 200)
        let session = try Self.session(kas, token: token, asset: stream.uuid)
        let pem = try ECP256.KeyAgreement.PrivateKey().publicKey.pemRepresentation
        var statuses: [Int] = []
        for _ in 0..<4 {
            statuses.append(try Self.post(kas, "/media/v1/rewrap", token: token, stream.body(session: session, clientKey: pem)).status)
        }
        #expect(statuses == [200, 200, 200, 429])
    }
}
