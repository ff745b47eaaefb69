import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMTDF
import Testing

/// One malformed request and the fixed answer it must get.
struct HostileCase: Sendable {
    enum Credential: Sendable { case none, valid, raw(String) }

    let label: String
    var method = "POST"
    let path: String
    var headers: [String] = []
    var body: Data?
    var credential = Credential.valid
    let status: Int
    /// The exact response body.
    let answer: String
}

extension AppTests {
    /// Issue 4's hostile-input suite against the assembled KAS: every malformed input a client
    /// can send, on every route (media and OpenTDF, REST and Connect), gets a 4xx with a fixed
    /// reason; afterwards the server still answers health checks and valid requests.
    @Suite struct HostileInputTests {
        static let asset = "0f0e0d0c-0b0a-4909-8807-060504030201"
        static let sessionID = String(repeating: "A", count: 43)

        static func json(_ members: [(String, JSONValue)]) -> Data {
            JSONWriter.write(.object(JSONObject(members)), options: [.sortedKeys])
        }

        static func jsonText(_ text: String) -> Data { Data(text.utf8) }

        /// A signed request token as OpenTDF clients make it (ES256 by a key the KAS does not know).
        static func signedRequestToken(_ requestBody: String, exp: Bool = true) throws -> String {
            var claims: [(String, JSONValue)] = [("requestBody", .string(requestBody)), ("iat", JWT.numericDate(Date()))]
            if exp { claims.append(("exp", JWT.numericDate(Date().addingTimeInterval(300)))) }
            return try JWT.sign(claims: JSONObject(claims), key: JWSSigningKey(p256: ECP256.Signing.PrivateKey()))
        }

        /// A v2 `UnsignedRewrapRequest` with one policy.
        static func v2(_ clientKey: String, policyBody: String, objects: [JSONValue]) -> String {
            String(decoding: json([("clientPublicKey", .string(clientKey)), ("requests", .array([.object(JSONObject([
                ("policy", .object(JSONObject([("id", "p1"), ("body", .string(policyBody))]))),
                ("keyAccessObjects", .array(objects)),
            ]))]))]), as: UTF8.self)
        }

        static func unsignedJWT(_ header: String, _ claims: String) -> String {
            Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8)) + "."
        }

        static func pem(_ kind: String) throws -> String {
            let key = try runProcess("/usr/bin/openssl", ["genpkey"] + (kind == "rsa1024"
                ? ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]
                : ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]))
            try ProjectTools.check(key, "openssl genpkey")
            let pub = try runProcess("/usr/bin/openssl", ["pkey", "-pubout"], stdin: key.stdout)
            try ProjectTools.check(pub, "openssl pkey")
            return String(decoding: pub.stdout, as: UTF8.self)
        }

        static func gzip(_ data: Data) throws -> Data {
            let result = try runProcess("/bin/gzip", ["-c"], stdin: data)
            try ProjectTools.check(result, "gzip")
            return result.stdout
        }

        static func cases(harness: KASTestHarness) throws -> [HostileCase] {
            let rsa1024 = try pem("rsa1024"), p384 = try pem("p384")
            let p256 = try ECP256.KeyAgreement.PrivateKey().publicKey.pemRepresentation
            let badPEM = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"
            let expired = try harness.token(sub: "hostile", ttl: -600)
            let valid = try harness.token(sub: "hostile")
            let wrongSignature = String(valid[..<(valid.lastIndex(of: ".") ?? valid.endIndex)]) + ".AAAA"
            let algNone = unsignedJWT(#"{"alg":"none","typ":"JWT"}"#,
                                      #"{"iss":"urn:mediadrm:kas:dev-issuer","aud":"urn:mediadrm:kas","sub":"x","exp":9999999999}"#)
            let oversized = Data(repeating: 0x61, count: (2 << 20) + 1)
            let bomb = try gzip(Data(count: 8 << 20))
            func keyRequest(_ extra: [(String, JSONValue)], dropping: Set<String> = []) -> Data {
                let base: [(String, JSONValue)] = [("assetId", .string(asset)), ("component", "video"),
                                                   ("sessionId", .string(sessionID)), ("tdfManifest", "e30=")]
                return json(base.filter { !dropping.contains($0.0) } + extra)
            }
            func rewrap(_ srt: String) -> Data { json([("signedRequestToken", .string(srt))]) }
            func v2(_ clientKey: String) -> String { Self.v2(clientKey, policyBody: "e30=", objects: []) }
            let v1BadWrappedKey = String(decoding: json([
                ("clientPublicKey", .string(p256)),
                ("policy", .string(TDFPolicy(dataAttributes: ["https://example.com/attr/a/value/b"]).base64)),
                ("keyAccess", .object(JSONObject([("type", "wrapped"), ("url", .string(harness.publicURL)), ("protocol", "kas"),
                                                  ("wrappedKey", "!!!"), ("policyBinding", "AAAA")]))),
            ]), as: UTF8.self)
            let session = "/media/v1/session/start", keyPath = "/media/v1/key-request"
            let rest = "/kas/v2/rewrap", connectKey = "/kas.AccessService/PublicKey", connectRewrap = "/kas.AccessService/Rewrap"
            let proto = "Content-Type: application/proto", connectJSON = "Content-Type: application/json"
            let malformedSession = #"{"error":"malformed session request"}"#
            let malformedKey = #"{"error":"malformed key request"}"#
            let unauthorized = #"{"error":"unauthorized"}"#
            let noSession = #"{"error":"no such session"}"#
            let tooLarge = #"{"error":"request body too large"}"#
            let badClientKey = #"{"error":"clientPublicKey is not an RSA (2048+) or P-256 PEM public key"}"#
            return [
                // Bearer tokens, on a media route (the rewrap routes share the verifier).
                HostileCase(label: "no token", path: session, body: json([]), credential: .none, status: 401, answer: unauthorized),
                HostileCase(label: "alg none token", path: session, body: json([]), credential: .raw(algNone), status: 401, answer: unauthorized),
                HostileCase(label: "wrong signature", path: session, body: json([]), credential: .raw(wrongSignature), status: 401, answer: unauthorized),
                HostileCase(label: "expired token", path: session, body: json([]), credential: .raw(expired), status: 401, answer: unauthorized),
                HostileCase(label: "garbage token", path: session, body: json([]), credential: .raw("not.a.jwt"), status: 401, answer: unauthorized),
                HostileCase(label: "token in the query", path: session + "?access_token=" + valid, body: json([]),
                            credential: .none, status: 401, answer: unauthorized),
                HostileCase(label: "rest rewrap without token", path: rest, body: rewrap("x"), credential: .none, status: 401,
                            answer: #"{"error":"a bearer token is required"}"#),
                HostileCase(label: "connect rewrap alg none token", path: connectRewrap, headers: [connectJSON], body: jsonText("{}"),
                            credential: .raw(algNone), status: 401, answer: #"{"code":"unauthenticated","message":"the bearer token is not valid"}"#),

                // Session start.
                HostileCase(label: "session: bad JSON", path: session, body: jsonText("{"), status: 400,
                            answer: #"{"error":"malformed JSON body (truncated)"}"#),
                HostileCase(label: "session: empty body", path: session, body: Data(), status: 400,
                            answer: #"{"error":"malformed JSON body (truncated)"}"#),
                HostileCase(label: "session: duplicate key", path: session,
                            body: jsonText(#"{"assetId":"\#(asset)","assetId":"\#(asset)","protocol":"tdf"}"#), status: 400,
                            answer: #"{"error":"malformed JSON body (duplicateKey)"}"#),
                HostileCase(label: "session: array", path: session, body: jsonText("[]"), status: 400, answer: malformedSession),
                HostileCase(label: "session: wrong types", path: session, body: jsonText(#"{"assetId":5,"protocol":"tdf"}"#),
                            status: 400, answer: malformedSession),
                HostileCase(label: "session: unknown member", path: session,
                            body: json([("assetId", .string(asset)), ("protocol", "tdf"), ("userId", "bob")]), status: 400, answer: malformedSession),
                HostileCase(label: "session: upper-case uuid", path: session,
                            body: json([("assetId", .string(asset.uppercased())), ("protocol", "tdf")]), status: 400, answer: malformedSession),
                HostileCase(label: "session: unknown protocol", path: session,
                            body: json([("assetId", .string(asset)), ("protocol", "widevine")]), status: 400, answer: malformedSession),
                HostileCase(label: "session: bad playbackId", path: session,
                            body: json([("assetId", .string(asset)), ("protocol", "tdf"), ("playbackId", "a b/c")]), status: 400,
                            answer: malformedSession),
                HostileCase(label: "session: bad device report", path: session,
                            body: json([("assetId", .string(asset)), ("protocol", "tdf"),
                                        ("device", .object(JSONObject([("securityLevel", "root")])))]), status: 400,
                            answer: #"{"error":"malformed device report"}"#),
                HostileCase(label: "session: oversized body", path: session, body: oversized, status: 413, answer: tooLarge),
                HostileCase(label: "session: GET", method: "GET", path: session, status: 405, answer: #"{"error":"method not allowed"}"#),

                // Heartbeat and end.
                HostileCase(label: "heartbeat: malformed id", path: "/media/v1/session/abc/heartbeat", body: Data(), status: 404, answer: noSession),
                HostileCase(label: "heartbeat: unknown id", path: "/media/v1/session/\(sessionID)/heartbeat", body: Data(), status: 404,
                            answer: noSession),
                HostileCase(label: "heartbeat: no token", path: "/media/v1/session/\(sessionID)/heartbeat", body: Data(), credential: .none,
                            status: 401, answer: unauthorized),
                HostileCase(label: "end: malformed id", method: "DELETE", path: "/media/v1/session/abc!", status: 404, answer: noSession),
                HostileCase(label: "end: NUL in the path", method: "DELETE", path: "/media/v1/session/%00", status: 400,
                            answer: #"{"error":"the request target contains a NUL byte (raw or %00)"}"#),
                HostileCase(label: "end: unknown id", method: "DELETE", path: "/media/v1/session/\(sessionID)", status: 404, answer: noSession),

                // Key request.
                HostileCase(label: "key: bad JSON", path: keyPath, body: jsonText(#"{"assetId""#), status: 400, answer: malformedKey),
                HostileCase(label: "key: array", path: keyPath, body: jsonText("[1]"), status: 400, answer: malformedKey),
                HostileCase(label: "key: wrong types", path: keyPath,
                            body: jsonText(#"{"assetId":1,"sessionId":2,"tdfManifest":3,"clientPublicKey":4}"#), status: 400, answer: malformedKey),
                HostileCase(label: "key: component a number", path: keyPath, body: keyRequest([("clientPublicKey", .string(p256))],
                            dropping: ["component"]).replacingJSON("}", with: #","component":7}"#), status: 400, answer: malformedKey),
                HostileCase(label: "key: unknown member", path: keyPath, body: keyRequest([("clientPublicKey", .string(p256)), ("userId", "x")]),
                            status: 400, answer: malformedKey),
                HostileCase(label: "key: no manifest", path: keyPath, body: keyRequest([("clientPublicKey", .string(p256))], dropping: ["tdfManifest"]),
                            status: 400, answer: malformedKey),
                HostileCase(label: "key: no delivery path", path: keyPath, body: keyRequest([]), status: 400, answer: malformedKey),
                HostileCase(label: "key: both delivery paths", path: keyPath,
                            body: keyRequest([("clientPublicKey", .string(p256)), ("spcData", "AAAA")]), status: 400, answer: malformedKey),
                HostileCase(label: "key: manifest not base64", path: keyPath,
                            body: keyRequest([("clientPublicKey", .string(p256))], dropping: ["tdfManifest"]).replacingJSON("}", with: #","tdfManifest":"e30"}"#),
                            status: 400, answer: malformedKey),
                HostileCase(label: "key: spcData not base64", path: keyPath, body: keyRequest([("spcData", "%%%%")]), status: 400, answer: malformedKey),
                HostileCase(label: "key: empty spcData", path: keyPath, body: keyRequest([("spcData", "")]), status: 400, answer: malformedKey),
                HostileCase(label: "key: bad PEM", path: keyPath, body: keyRequest([("clientPublicKey", .string(badPEM))]), status: 400,
                            answer: malformedKey),
                HostileCase(label: "key: P-384 client key", path: keyPath, body: keyRequest([("clientPublicKey", .string(p384))]), status: 400,
                            answer: malformedKey),
                HostileCase(label: "key: RSA client key", path: keyPath, body: keyRequest([("clientPublicKey", .string(rsa1024))]), status: 400,
                            answer: malformedKey),
                HostileCase(label: "key: bad device report", path: keyPath,
                            body: keyRequest([("clientPublicKey", .string(p256)), ("device", .array([]))]), status: 400, answer: malformedKey),
                HostileCase(label: "key: malformed session id", path: keyPath,
                            body: keyRequest([("clientPublicKey", .string(p256))]).replacingJSON(sessionID, with: "../../etc"), status: 403,
                            answer: #"{"error":"manifest refused"}"#),
                HostileCase(label: "key: unknown session", path: keyPath, body: keyRequest([("clientPublicKey", .string(p256))]), status: 403,
                            answer: #"{"error":"manifest refused"}"#),
                HostileCase(label: "key: oversized body", path: keyPath, body: oversized, status: 413, answer: tooLarge),
                HostileCase(label: "certificate: POST", path: "/media/v1/certificate", body: Data(), credential: .none, status: 405,
                            answer: #"{"error":"method not allowed"}"#),

                // OpenTDF REST.
                HostileCase(label: "public key: bad algorithm", method: "GET", path: "/kas/v2/kas_public_key?algorithm=rsa:1024",
                            credential: .none, status: 400, answer: #"{"error":"algorithm must be rsa:2048 or ec:secp256r1"}"#),
                HostileCase(label: "public key: unknown kid", method: "GET", path: "/kas/v2/kas_public_key?kid=zz", credential: .none,
                            status: 404, answer: #"{"error":"no KAS key with this kid and algorithm"}"#),
                HostileCase(label: "rewrap: bad JSON", path: rest, body: jsonText("{"), status: 400,
                            answer: #"{"error":"request body is not valid JSON (truncated)"}"#),
                HostileCase(label: "rewrap: wrong type", path: rest, body: jsonText(#"{"signedRequestToken":5}"#), status: 400,
                            answer: #"{"error":"RewrapRequest.signedRequestToken is not a string"}"#),
                HostileCase(label: "rewrap: not a JWT", path: rest, body: rewrap("abc"), status: 401,
                            answer: #"{"error":"signedRequestToken is not a well-formed JWT"}"#),
                HostileCase(label: "rewrap: alg none request token", path: rest,
                            body: rewrap(unsignedJWT(#"{"alg":"none"}"#, #"{"requestBody":"{}","exp":9999999999}"#)), status: 401,
                            answer: #"{"error":"signedRequestToken is not a well-formed JWT"}"#),
                HostileCase(label: "rewrap: request token without exp", path: rest, body: rewrap(try signedRequestToken(v2(p256), exp: false)),
                            status: 401, answer: #"{"error":"signedRequestToken has no exp"}"#),
                HostileCase(label: "rewrap: requestBody not JSON", path: rest, body: rewrap(try signedRequestToken("{")), status: 400,
                            answer: #"{"error":"requestBody is not valid JSON (truncated)"}"#),
                HostileCase(label: "rewrap: requestBody wrong types", path: rest,
                            body: rewrap(try signedRequestToken(#"{"clientPublicKey":1,"requests":{}}"#)), status: 400,
                            answer: #"{"error":"requestBody.clientPublicKey is not a string"}"#),
                HostileCase(label: "rewrap: client key bad PEM", path: rest, body: rewrap(try signedRequestToken(v2(badPEM))), status: 400, answer: badClientKey),
                HostileCase(label: "rewrap: client key RSA-1024", path: rest, body: rewrap(try signedRequestToken(v2(rsa1024))), status: 400, answer: badClientKey),
                HostileCase(label: "rewrap: client key P-384", path: rest, body: rewrap(try signedRequestToken(v2(p384))), status: 400, answer: badClientKey),
                HostileCase(label: "rewrap: v1 wrappedKey not base64", path: rest, body: rewrap(try signedRequestToken(v1BadWrappedKey)),
                            status: 400, answer: #"{"error":"bad request: keyAccessObject.wrappedKey is not base64"}"#),

                // OpenTDF Connect.
                HostileCase(label: "connect public key: truncated protobuf", path: connectKey, headers: [proto],
                            body: Data([0x0A, 0x10, 0x61, 0x62]), credential: .none, status: 400,
                            answer: #"{"code":"invalid_argument","message":"the protobuf body is malformed (invalidLength)"}"#),
                HostileCase(label: "connect public key: wrong JSON type", path: connectKey, headers: [connectJSON],
                            body: jsonText(#"{"algorithm":5}"#), credential: .none, status: 400,
                            answer: #"{"code":"invalid_argument","message":"PublicKeyRequest.algorithm is not a string"}"#),
                HostileCase(label: "connect public key: bad gzip", path: connectKey, headers: [connectJSON, "Content-Encoding: gzip"],
                            body: jsonText("notgzip"), credential: .none, status: 400,
                            answer: #"{"code":"invalid_argument","message":"the gzip body is not valid gzip"}"#),
                HostileCase(label: "connect public key: unknown encoding", path: connectKey, headers: [connectJSON, "Content-Encoding: br"],
                            body: jsonText("{}"), credential: .none, status: 415,
                            answer: #"{"code":"invalid_argument","message":"Content-Encoding must be gzip or identity"}"#),
                HostileCase(label: "connect rewrap: truncated protobuf", path: connectRewrap, headers: [proto], body: Data([0x0A, 0xFF]),
                            status: 400, answer: #"{"code":"invalid_argument","message":"the protobuf body is malformed (truncated)"}"#),
                HostileCase(label: "connect rewrap: truncated gzip", path: connectRewrap, headers: [proto, "Content-Encoding: gzip"],
                            body: Data([0x1F, 0x8B, 0x08, 0x00, 0x67]), status: 400,
                            answer: #"{"code":"invalid_argument","message":"the gzip body is truncated"}"#),
                HostileCase(label: "connect rewrap: gzip bomb", path: connectRewrap, headers: [proto, "Content-Encoding: gzip"], body: bomb,
                            status: 429,
                            answer: #"{"code":"resource_exhausted","message":"the gzip body inflates past the limit of 4194304 bytes"}"#),
                HostileCase(label: "connect rewrap: wrong content type", path: connectRewrap, headers: ["Content-Type: text/plain"],
                            body: jsonText("x"), status: 415,
                            answer: #"{"code":"invalid_argument","message":"Content-Type must be application/proto or application/json"}"#),
                HostileCase(label: "connect rewrap: wrong JSON type", path: connectRewrap, headers: [connectJSON],
                            body: jsonText(#"{"signedRequestToken":[1]}"#), status: 400,
                            answer: #"{"code":"invalid_argument","message":"RewrapRequest.signedRequestToken is not a string"}"#),
            ]
        }

        private func send(_ item: HostileCase, harness: KASTestHarness, token: String) throws -> CurlResult {
            var headers = item.headers
            switch item.credential {
            case .none: break
            case .valid: headers.append("Authorization: Bearer \(token)")
            case .raw(let text): headers.append("Authorization: Bearer \(text)")
            }
            guard let body = item.body else {
                var arguments = ["-X", item.method]
                for header in headers { arguments += ["-H", header] }
                return try Curl.run(arguments + [harness.url(item.path)])
            }
            return try harness.post(item.path, token: nil, body: body, headers: headers, method: item.method)
        }

        @Test func everyMalformedInputGetsAFixed4xxAndTheServerKeepsServing() throws {
            let harness = try KASTestHarness()
            defer { harness.stop() }
            let token = try harness.token(sub: "hostile", ttl: 600)
            let cases = try Self.cases(harness: harness)
            #expect(cases.count >= 60)
            for item in cases {
                let result = try send(item, harness: harness, token: token)
                #expect(result.status == item.status, "\(item.label): \(result.status) \(result.text)")
                #expect(result.text == item.answer, "\(item.label): \(result.text)")
                #expect((400..<500).contains(result.status), "\(item.label)")
                #expect(!result.text.contains(token), "\(item.label) echoed the token")
            }

            // Still serving: health, the public key, and a whole valid media exchange.
            #expect(try harness.get("/healthz").text == #"{"status":"ok"}"#)
            #expect(try harness.get("/kas/v2/kas_public_key").status == 200)
            let session = try #require(try harness.startSession(token: token, asset: Self.asset))
            let beat = try harness.post("/media/v1/session/\(session)/heartbeat", token: token, body: Data())
            #expect(beat.status == 200)
            #expect(try harness.post("/media/v1/session/\(session)", token: token, body: Data(), method: "DELETE").status == 200)
            // A malformed object inside a v2 bulk rewrap fails alone, as OpenTDF answers it: 200
            // with a "fail" result carrying a fixed reason and no key.
            let object: JSONValue = .object(JSONObject([("keyAccessObjectId", "k1"), ("keyAccessObject", .object(JSONObject([
                ("type", "wrapped"), ("url", .string(harness.publicURL)), ("protocol", "kas"), ("wrappedKey", "AAAA"),
                ("policyBinding", "AAAA"),
            ])))]))
            let bulk = try harness.post("/kas/v2/rewrap", token: token, json: [("signedRequestToken", .string(try Self.signedRequestToken(
                Self.v2(try ECP256.KeyAgreement.PrivateKey().publicKey.pemRepresentation, policyBody: "!!", objects: [object]))))])
            #expect(bulk.status == 200)
            let results = try #require(try JSONParser.parse(bulk.body).object?["responses"]?.array?.first?.object?["results"]?.array)
            #expect(results.count == 1)
            #expect(results.first?.object?["status"]?.string == "fail")
            #expect(results.first?.object?["error"]?.string?.hasPrefix("bad request: ") == true)
            #expect(results.first?.object?["kasWrappedKey"] == nil)

            // No 5xx anywhere in the request log.
            for line in harness.log.lines where line.contains(#""event":"request""#) {
                #expect(!line.contains(#""status":5"#), "\(line)")
            }
        }
    }
}

extension Data {
    /// The JSON text with the first occurrence of `target` replaced (building malformed bodies).
    func replacingJSON(_ target: String, with replacement: String) -> Data {
        let text = String(decoding: self, as: UTF8.self)
        guard let range = text.range(of: target, options: target == "}" ? .backwards : []) else { return self }
        return Data(text.replacingCharacters(in: range, with: replacement).utf8)
    }
}
