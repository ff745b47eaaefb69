import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMTDF
import Testing

private typealias F = OpenTDFFixtures
private let gold = "https://example.com/attr/tier/value/gold"

/// The OpenTDF routes on the real server, driven by curl.
@Suite(.serialized) struct OpenTDFRoutesTests {
    @Test func connectPublicKeyInProtoAndJSONWithAndWithoutGzip() throws {
        let kas = try OpenTDFTestKAS()
        let url = kas.server.url("/kas.AccessService/PublicKey")
        let rsa = try #require(kas.rsaKey)
        let ec = try #require(kas.ecKey)

        let proto = try curlPost(url, body: PublicKeyRequest().protobufData,
                                 headers: ["Content-Type: application/proto", "Connect-Protocol-Version: 1"])
        #expect(proto.status == 200)
        #expect(proto.header("Content-Type") == "application/proto")
        #expect(try PublicKeyResponse(protobuf: proto.body) == PublicKeyResponse(publicKey: rsa.publicKeyPEM, kid: rsa.kid))

        let compressed = try curlPost(url, body: try gzipped(PublicKeyRequest(algorithm: "ec:secp256r1").protobufData),
                                      headers: ["Content-Type: application/proto", "Content-Encoding: gzip"])
        #expect(compressed.status == 200)
        #expect(try PublicKeyResponse(protobuf: compressed.body).kid == ec.kid)

        let json = try curlPost(url, body: Data(#"{"algorithm":"ec:secp256r1"}"#.utf8), headers: ["Content-Type: application/json"])
        #expect(json.status == 200)
        #expect(json.header("Content-Type") == "application/json")
        #expect(try PublicKeyResponse(json: jsonObject(json.body)) == PublicKeyResponse(publicKey: ec.publicKeyPEM, kid: ec.kid))
    }

    @Test func restPublicKeyAndWellKnown() throws {
        let kas = try OpenTDFTestKAS()
        let rsa = try #require(kas.rsaKey)
        let ec = try #require(kas.ecKey)
        let plain = try Curl.run([kas.server.url("/kas/v2/kas_public_key")])
        #expect(plain.status == 200)
        #expect(try PublicKeyResponse(json: jsonObject(plain.body)) == PublicKeyResponse(publicKey: rsa.publicKeyPEM, kid: rsa.kid))
        let byKid = try Curl.run([kas.server.url("/kas/v2/kas_public_key?algorithm=ec:secp256r1&kid=\(ec.kid)")])
        #expect(try PublicKeyResponse(json: jsonObject(byKid.body)).publicKey == ec.publicKeyPEM)
        let wrongKid = try Curl.run([kas.server.url("/kas/v2/kas_public_key?kid=\(ec.kid)")])
        #expect(wrongKid.status == 404)
        let badAlgorithm = try Curl.run([kas.server.url("/kas/v2/kas_public_key?algorithm=rsa:1024")])
        #expect(badAlgorithm.status == 400)
        #expect(try jsonObject(badAlgorithm.body)["error"] == .string("algorithm must be rsa:2048 or ec:secp256r1"))

        let wellKnown = try Curl.run([kas.server.url("/.well-known/opentdf-configuration")])
        #expect(wellKnown.status == 200)
        let configuration = try #require(try jsonObject(wellKnown.body)["configuration"]?.object)
        #expect(configuration["platform_issuer"] == .string(DevIssuer.issuer))
        #expect(configuration["kas"]?.object?["uri"] == .string("https://kas.example.com/kas"))
    }

    @Test func connectAndRESTRewrapRoundTrip() throws {
        let kas = try OpenTDFTestKAS()
        let rsa = try #require(kas.rsaKey)
        let (manifest, archive, plaintext) = try F.tdf(kasKey: try KASPublicKey(pemRepresentation: rsa.publicKeyPEM), kid: rsa.kid,
                                                       policy: TDFPolicy(dataAttributes: [gold]))
        let info = manifest.encryptionInformation
        let body = F.requestBody(clientPublicKey: F.clientEC.publicKey.pemRepresentation, requests: [
            F.policyRequest(id: "p", policyBase64: info.policy, objects: [("kao-0", info.keyAccess[0].jsonValue)]),
        ])
        let srt = try F.signedRequestToken(body, iat: Date(), exp: Date().addingTimeInterval(600))
        let token = try kas.token(subject: "alice", entitlements: [gold])
        let reader = try TDFArchiveReader(data: archive)

        // Connect, protobuf, gzip.
        let connect = try curlPost(kas.server.url("/kas.AccessService/Rewrap"),
                                   body: try gzipped(RewrapRequest(signedRequestToken: srt).protobufData),
                                   headers: ["Content-Type: application/proto", "Content-Encoding: gzip", "Authorization: Bearer \(token)"])
        #expect(connect.status == 200)
        let response = try RewrapResponse(protobuf: connect.body)
        let wrapped = try #require(response.responses.first?.results.first?.kasWrappedKey)
        let key = try F.unwrapForClient(wrapped, rsa: false, sessionPublicKey: response.sessionPublicKey)
        #expect(try reader.decrypt(payloadKey: key) == plaintext)

        // REST, JSON.
        let rest = try curlPost(kas.server.url("/kas/v2/rewrap"),
                                body: JSONWriter.write(RewrapRequest(signedRequestToken: srt).jsonValue),
                                headers: ["Content-Type: application/json", "Authorization: Bearer \(token)"])
        #expect(rest.status == 200)
        let restResponse = try RewrapResponse(json: jsonObject(rest.body))
        let restWrapped = try #require(restResponse.responses.first?.results.first?.kasWrappedKey)
        #expect(try reader.decrypt(payloadKey: F.unwrapForClient(restWrapped, rsa: false, sessionPublicKey: restResponse.sessionPublicKey)) == plaintext)

        // Connect, JSON, a viewer without the attribute: a per-object fail, no key.
        let eve = try kas.token(subject: "eve")
        let denied = try curlPost(kas.server.url("/kas.AccessService/Rewrap"),
                                  body: JSONWriter.write(RewrapRequest(signedRequestToken: srt).jsonValue),
                                  headers: ["Content-Type: application/json", "Authorization: Bearer \(eve)"])
        #expect(denied.status == 200)
        let deniedResult = try #require(try RewrapResponse(json: jsonObject(denied.body)).responses.first?.results.first)
        #expect(deniedResult.status == "fail")
        #expect(deniedResult.kasWrappedKey == nil)
    }

    /// Every malformed input a client can send gets a 4xx with a fixed reason, and the server
    /// keeps serving.
    @Test func malformedInputsGetConnectErrorsAndTheServerKeepsServing() throws {
        let kas = try OpenTDFTestKAS()
        let rewrapURL = kas.server.url("/kas.AccessService/Rewrap")
        let keyURL = kas.server.url("/kas.AccessService/PublicKey")
        let token = try kas.token(subject: "alice")
        let auth = "Authorization: Bearer \(token)"
        let proto = "Content-Type: application/proto"
        // Well-formed in every way except its client key, which is not a PEM key.
        let request = F.policyRequest(id: "p", policyBase64: TDFPolicy().base64, objects: [("k", .object(JSONObject()))])
        let validSRT = try F.signedRequestToken(JSONObject([("clientPublicKey", .string("x")), ("requests", .array([request]))]),
                                                iat: Date(), exp: Date().addingTimeInterval(600))
        let validBody = RewrapRequest(signedRequestToken: validSRT).protobufData
        let noneHeader = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"sub":"alice","iss":"urn:mediadrm:kas:dev-issuer","aud":"urn:mediadrm:kas","exp":9999999999}"#.utf8))
        let parts = token.split(separator: ".")
        let wrongSignature = "\(parts[0]).\(parts[1]).\(Base64URL.encode(Data(repeating: 7, count: 64)))"

        struct Case { var name: String; var url: String; var body: Data; var headers: [String]; var status: Int; var code: String }
        let cases: [Case] = [
            Case(name: "truncated protobuf", url: rewrapURL, body: validBody.prefix(validBody.count - 3), headers: [proto, auth], status: 400, code: "invalid_argument"),
            Case(name: "hostile varint", url: keyURL, body: Data(repeating: 0xFF, count: 11), headers: [proto], status: 400, code: "invalid_argument"),
            Case(name: "bad gzip", url: keyURL, body: Data("not gzip at all".utf8), headers: [proto, "Content-Encoding: gzip"], status: 400, code: "invalid_argument"),
            Case(name: "unknown encoding", url: keyURL, body: Data(), headers: [proto, "Content-Encoding: br"], status: 415, code: "invalid_argument"),
            Case(name: "no content type", url: keyURL, body: Data(), headers: [], status: 415, code: "invalid_argument"),
            Case(name: "text content type", url: keyURL, body: Data(), headers: ["Content-Type: text/plain"], status: 415, code: "invalid_argument"),
            Case(name: "bad JSON", url: keyURL, body: Data("{".utf8), headers: ["Content-Type: application/json"], status: 400, code: "invalid_argument"),
            Case(name: "wrong JSON type", url: rewrapURL, body: Data(#"{"signedRequestToken": 5}"#.utf8), headers: ["Content-Type: application/json", auth], status: 400, code: "invalid_argument"),
            Case(name: "duplicate JSON key", url: keyURL, body: Data(#"{"algorithm":"rsa:2048","algorithm":"x"}"#.utf8), headers: ["Content-Type: application/json"], status: 400, code: "invalid_argument"),
            Case(name: "bad algorithm", url: keyURL, body: PublicKeyRequest(algorithm: "ec:secp521r1").protobufData, headers: [proto], status: 400, code: "invalid_argument"),
            Case(name: "missing token", url: rewrapURL, body: validBody, headers: [proto], status: 401, code: "unauthenticated"),
            Case(name: "alg none token", url: rewrapURL, body: validBody, headers: [proto, "Authorization: Bearer \(noneHeader).\(claims)."], status: 401, code: "unauthenticated"),
            Case(name: "wrong signature", url: rewrapURL, body: validBody, headers: [proto, "Authorization: Bearer \(wrongSignature)"], status: 401, code: "unauthenticated"),
            Case(name: "not a request token", url: rewrapURL, body: RewrapRequest(signedRequestToken: "abc").protobufData, headers: [proto, auth], status: 401, code: "unauthenticated"),
            Case(name: "bad client key", url: rewrapURL, body: validBody, headers: [proto, auth], status: 400, code: "invalid_argument"),
            Case(name: "bad protocol version", url: keyURL, body: Data(), headers: [proto, "Connect-Protocol-Version: 2"], status: 400, code: "invalid_argument"),
        ]
        for item in cases {
            let result = try curlPost(item.url, body: item.body, headers: item.headers)
            #expect(result.status == item.status, "\(item.name)")
            #expect(result.header("Content-Type") == "application/json", "\(item.name)")
            let object = try jsonObject(result.body)
            #expect(object["code"] == .string(item.code), "\(item.name)")
            #expect(object["message"]?.string?.isEmpty == false, "\(item.name)")
            #expect(!result.text.contains(token), "\(item.name)")
        }

        // Gzip bomb: 20 MiB of zeros in a few KiB.
        let bomb = try curlPost(keyURL, body: try gzipped(Data(repeating: 0, count: 20 << 20)), headers: [proto, "Content-Encoding: gzip"])
        #expect(bomb.status == 429)
        #expect(try jsonObject(bomb.body)["code"] == .string("resource_exhausted"))

        // REST shapes answer with the server's {"error": reason}.
        let rest = try curlPost(kas.server.url("/kas/v2/rewrap"), body: Data("[]".utf8), headers: ["Content-Type: application/json", auth])
        #expect(rest.status == 400)
        #expect(try jsonObject(rest.body)["error"] != nil)
        let restNoToken = try curlPost(kas.server.url("/kas/v2/rewrap"), body: Data("{}".utf8), headers: ["Content-Type: application/json"])
        #expect(restNoToken.status == 401)

        // Still serving.
        let after = try curlPost(keyURL, body: Data(), headers: [proto])
        #expect(after.status == 200)
        #expect(try PublicKeyResponse(protobuf: after.body).kid == kas.rsaKey?.kid)
    }

    @Test func dpopProofBindsTheRequestToken() throws {
        let kas = try OpenTDFTestKAS()
        let rsa = try #require(kas.rsaKey)
        let (manifest, _, _) = try F.tdf(kasKey: try KASPublicKey(pemRepresentation: rsa.publicKeyPEM), kid: rsa.kid, policy: TDFPolicy())
        let info = manifest.encryptionInformation
        let body = F.requestBody(clientPublicKey: F.clientRSA.publicKey.pemRepresentation, requests: [
            F.policyRequest(id: "p", policyBase64: info.policy, objects: [("k", info.keyAccess[0].jsonValue)]),
        ])
        let token = try kas.token(subject: "alice")
        let dpop = try ECP256.Signing.PrivateKey()
        let srt = try F.signedRequestToken(body, iat: Date(), exp: Date().addingTimeInterval(600), key: JWSSigningKey(p256: dpop))
        let url = kas.server.url("/kas.AccessService/Rewrap")

        func proof(key: ECP256.Signing.PrivateKey, path: String = "/kas.AccessService/Rewrap") throws -> String {
            let jwk = JWK(publicKey: key.publicKey)
            let header = JSONObject([("typ", .string("dpop+jwt")), ("jwk", .object(jwk.jsonObject))])
            let claims = JSONObject([
                ("jti", .string(UUID().uuidString)), ("htm", .string("POST")), ("htu", .string(kas.server.url(path))),
                ("iat", JWT.numericDate(Date())),
                ("ath", .string(Base64URL.encode(SHA256Digest.hash(data: Data(token.utf8))))),
            ])
            return try JWS.sign(payload: JSONWriter.write(.object(claims)), header: header, key: JWSSigningKey(p256: key))
        }
        let headers = ["Content-Type: application/proto", "Authorization: Bearer \(token)"]
        let good = try curlPost(url, body: RewrapRequest(signedRequestToken: srt).protobufData, headers: headers + ["DPoP: \(try proof(key: dpop))"])
        #expect(good.status == 200)
        #expect(try RewrapResponse(protobuf: good.body).responses.first?.results.first?.status == "permit")

        let otherKey = try ECP256.Signing.PrivateKey()
        let mismatched = try curlPost(url, body: RewrapRequest(signedRequestToken: srt).protobufData, headers: headers + ["DPoP: \(try proof(key: otherKey))"])
        #expect(mismatched.status == 401)
        let wrongPath = try curlPost(url, body: RewrapRequest(signedRequestToken: srt).protobufData,
                                     headers: headers + ["DPoP: \(try proof(key: dpop, path: "/kas/v2/rewrap"))"])
        #expect(wrongPath.status == 401)
    }
}
