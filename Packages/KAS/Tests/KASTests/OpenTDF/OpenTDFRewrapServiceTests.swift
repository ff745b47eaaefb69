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

private let alice = OpenTDFEntity(subject: "alice", entitlements: ["https://example.com/attr/tier/value/gold"])
private let gold = "https://example.com/attr/tier/value/gold"

@Suite struct OpenTDFRewrapServiceTests {
    struct Combination: Sendable, CustomTestStringConvertible {
        var ecKAS: Bool
        var rsaClient: Bool
        var testDescription: String { "\(ecKAS ? "EC" : "RSA") KAS key, \(rsaClient ? "RSA" : "EC") client key" }
    }

    @Test(arguments: [Combination(ecKAS: false, rsaClient: true), Combination(ecKAS: false, rsaClient: false),
                      Combination(ecKAS: true, rsaClient: true), Combination(ecKAS: true, rsaClient: false)])
    func rewrapsTheTDFKeyToTheClient(_ combination: Combination) throws {
        let policy = TDFPolicy(dataAttributes: [gold])
        let kasKey = combination.ecKAS ? F.ecKASKey : F.rsaKASKey
        let (manifest, archive, plaintext) = try F.tdf(kasKey: kasKey, kid: combination.ecKAS ? "e1" : "r2", policy: policy)
        let info = manifest.encryptionInformation
        let clientPEM = combination.rsaClient ? F.clientRSA.publicKey.pemRepresentation : F.clientEC.publicKey.pemRepresentation
        let body = F.requestBody(clientPublicKey: clientPEM, requests: [
            F.policyRequest(id: "policy", policyBase64: info.policy, objects: [("kao-0", info.keyAccess[0].jsonValue)]),
        ])
        let token = try F.signedRequestToken(body)
        let response = try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: alice)

        let result = try #require(response.responses.first?.results.first)
        #expect(response.responses.first?.policyID == "policy")
        #expect(result.keyAccessObjectID == "kao-0")
        #expect(result.status == "permit")
        #expect(response.sessionPublicKey.isEmpty == combination.rsaClient)
        #expect(response.entityWrappedKey.isEmpty)
        let wrapped = try #require(result.kasWrappedKey)
        let key = try F.unwrapForClient(wrapped, rsa: combination.rsaClient, sessionPublicKey: response.sessionPublicKey)
        let reader = try TDFArchiveReader(data: archive)
        #expect(try reader.decrypt(payloadKey: key) == plaintext)
    }

    @Test func rawFormBindingsVerifyToo() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy(), bindingForm: .raw)
        let response = try rewrap(manifest, entity: OpenTDFEntity(subject: "anyone", entitlements: []))
        #expect(response.responses.first?.results.first?.status == "permit")
    }

    @Test func tamperedPolicyFailsEveryObject() throws {
        let original = TDFPolicy(uuid: "7d6d7b70-1d8f-4c9f-8f39-4f1f6b2f8f10", dataAttributes: [gold])
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: original)
        // A viewer without gold rewrites the policy to drop the attribute.
        let loosened = TDFPolicy(uuid: original.uuid).base64
        let response = try rewrap(manifest, policyBase64: loosened, entity: OpenTDFEntity(subject: "mallory", entitlements: []))
        let result = try #require(response.responses.first?.results.first)
        #expect(result.status == "fail")
        #expect(result.kasWrappedKey == nil)
        #expect(result.error?.contains("policy binding") == true)

        // Same JSON, different base64 text (re-encoded with whitespace): also refused.
        let json = String(decoding: try Base64.decode(manifest.encryptionInformation.policy), as: UTF8.self)
        let respaced = Base64.encode(Data((json + " ").utf8))
        let second = try rewrap(manifest, policyBase64: respaced, entity: alice)
        #expect(second.responses.first?.results.first?.status == "fail")
    }

    @Test func nonEntitledViewerFails() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2",
                                         policy: TDFPolicy(dataAttributes: [gold, "https://example.com/attr/region/value/eu"]))
        let response = try rewrap(manifest, entity: alice)   // has gold, not eu
        let result = try #require(response.responses.first?.results.first)
        #expect(result.status == "fail")
        #expect(result.error?.hasPrefix("forbidden") == true)
        #expect(result.kasWrappedKey == nil)

        let entitled = OpenTDFEntity(subject: "bob", entitlements: ["HTTPS://EXAMPLE.COM/attr/region/value/EU", gold])
        #expect(try rewrap(manifest, entity: entitled).responses.first?.results.first?.status == "permit")
    }

    @Test func dissemListsTheSubject() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.ecKASKey, kid: "e1", policy: TDFPolicy(dissem: ["bob", "carol"]))
        let denied = try rewrap(manifest, entity: alice)
        #expect(denied.responses.first?.results.first?.status == "fail")
        #expect(denied.responses.first?.results.first?.error?.hasPrefix("forbidden") == true)
        let noSubject = try rewrap(manifest, entity: OpenTDFEntity(subject: nil, entitlements: []))
        #expect(noSubject.responses.first?.results.first?.status == "fail")
        let permitted = try rewrap(manifest, entity: OpenTDFEntity(subject: "carol", entitlements: []))
        #expect(permitted.responses.first?.results.first?.status == "permit")
    }

    @Test func mediaPoliciesAreRefusedUnlessConfigured() throws {
        let media: JSONValue = .object(JSONObject([("maxConcurrentStreams", .number(JSONNumber(1)))]))
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy(media: media))
        #expect(try rewrap(manifest, entity: alice).responses.first?.results.first?.status == "fail")
        #expect(try rewrap(manifest, entity: alice, service: F.service(media: .ignore)).responses.first?.results.first?.status == "permit")
    }

    @Test func keysAreChosenByKidElseActiveThenRetired() throws {
        // Wrapped to the retired key, without a kid: the active key fails, the retired one unwraps.
        let (retired, _, _) = try F.tdf(kasKey: .rsa(F.kasRSARetired.publicKey), kid: nil, policy: TDFPolicy())
        #expect(try rewrap(retired, entity: alice).responses.first?.results.first?.status == "permit")
        // Wrapped to the retired key but naming the active kid: only that key is tried.
        let (misnamed, _, _) = try F.tdf(kasKey: .rsa(F.kasRSARetired.publicKey), kid: "r2", policy: TDFPolicy())
        #expect(try rewrap(misnamed, entity: alice).responses.first?.results.first?.status == "fail")
        // An unknown kid.
        let (unknown, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "nope", policy: TDFPolicy())
        #expect(try rewrap(unknown, entity: alice).responses.first?.results.first?.status == "fail")
    }

    @Test func bulkRequestsGetAResultPerObject() throws {
        let (open, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy())
        let (gated, _, _) = try F.tdf(kasKey: F.ecKASKey, kid: "e1", policy: TDFPolicy(dataAttributes: ["https://example.com/attr/x/value/y"]))
        var broken = open.encryptionInformation.keyAccess[0].jsonValue
        if case .object(var object) = broken {
            object = JSONObject(object.members.filter { $0.key != "wrappedKey" })
            broken = .object(object)
        }
        let body = F.requestBody(clientPublicKey: F.clientEC.publicKey.pemRepresentation, requests: [
            F.policyRequest(id: "open", policyBase64: open.encryptionInformation.policy, objects: [
                ("a", open.encryptionInformation.keyAccess[0].jsonValue),
                ("b", broken),
                ("c", gated.encryptionInformation.keyAccess[0].jsonValue),   // bound to another policy
            ]),
            F.policyRequest(id: "gated", policyBase64: gated.encryptionInformation.policy, objects: [
                ("d", gated.encryptionInformation.keyAccess[0].jsonValue),
            ]),
        ])
        let response = try F.service().rewrap(RewrapRequest(signedRequestToken: try F.signedRequestToken(body)), entity: alice)
        #expect(response.responses.map(\.policyID) == ["open", "gated"])
        let first = try #require(response.responses.first).results
        #expect(first.map(\.keyAccessObjectID) == ["a", "b", "c"])
        #expect(first.map(\.status) == ["permit", "fail", "fail"])
        #expect(response.responses.last?.results.map(\.status) == ["fail"])
        #expect(response.responses.last?.results.first?.error?.hasPrefix("forbidden") == true)
        // Errors never carry key material.
        for result in first + (response.responses.last?.results ?? []) {
            if let error = result.error {
                #expect(!error.contains(open.encryptionInformation.keyAccess[0].wrappedKey))
                #expect(error.count < 120)
            }
        }
        let key = try F.unwrapForClient(try #require(first.first?.kasWrappedKey), rsa: false, sessionPublicKey: response.sessionPublicKey)
        #expect(key.byteCount == 32)
    }

    @Test func v1RequestsAnswerWithEntityWrappedKeyOrAnError() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy(dataAttributes: [gold]))
        let info = manifest.encryptionInformation
        let body = JSONObject([
            ("clientPublicKey", .string(F.clientRSA.publicKey.pemRepresentation)),
            ("keyAccess", info.keyAccess[0].jsonValue),
            ("policy", .string(info.policy)),
        ])
        let token = try F.signedRequestToken(body)
        let response = try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: alice)
        #expect(response.responses.first?.policyID == "policy-1")
        let key = try F.unwrapForClient(response.entityWrappedKey, rsa: true, sessionPublicKey: "")
        #expect(try F.kasRSA.decrypt(Base64.decode(info.keyAccess[0].wrappedKey), padding: .oaepSHA1) == key.withUnsafeBytes { Data($0) })

        #expect(throws: OpenTDFError(.permissionDenied, "")) {
            try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: OpenTDFEntity(subject: "eve", entitlements: []))
        }
        var tampered = body
        tampered = JSONObject(tampered.members.map { $0.key == "policy" ? ($0.key, .string(TDFPolicy().base64)) : ($0.key, $0.value) })
        #expect(throws: OpenTDFError(.malformedRequest, "")) {
            try F.service().rewrap(RewrapRequest(signedRequestToken: try F.signedRequestToken(tampered)), entity: alice)
        }
    }

    @Test func requestTokenTimesAreChecked() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy())
        let body = requestBody(manifest)
        let expired = try F.signedRequestToken(body, iat: F.now.addingTimeInterval(-7200), exp: F.now.addingTimeInterval(-61))
        #expect(throws: OpenTDFError(.unauthenticated, "")) { try F.service().rewrap(RewrapRequest(signedRequestToken: expired), entity: alice) }
        let withinSkew = try F.signedRequestToken(body, iat: F.now.addingTimeInterval(-7200), exp: F.now.addingTimeInterval(-30))
        #expect(try F.service().rewrap(RewrapRequest(signedRequestToken: withinSkew), entity: alice).responses.count == 1)
        let future = try F.signedRequestToken(body, iat: F.now.addingTimeInterval(120))
        #expect(throws: OpenTDFError(.unauthenticated, "")) { try F.service().rewrap(RewrapRequest(signedRequestToken: future), entity: alice) }
        let noExpiry = try F.signedRequestToken(body, exp: nil)
        #expect(throws: OpenTDFError(.unauthenticated, "")) { try F.service().rewrap(RewrapRequest(signedRequestToken: noExpiry), entity: alice) }
    }

    @Test func requestTokenSignatureIsCheckedWhenADPoPKeyIsPresented() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy())
        let token = try F.signedRequestToken(requestBody(manifest))
        let dpop = JWSSigningKey(p256: F.dpopKey).verificationKey
        #expect(try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: alice, dpopKey: dpop).responses.count == 1)
        let other = JWSSigningKey(p256: try ECP256.Signing.PrivateKey()).verificationKey
        #expect(throws: OpenTDFError(.unauthenticated, "")) {
            try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: alice, dpopKey: other)
        }
    }

    @Test(arguments: [
        ("", OpenTDFError.Code.malformedRequest),
        ("not-a-jwt", .unauthenticated),
        ("a.b.c", .unauthenticated),
        ("eyJhbGciOiJub25lIn0.eyJleHAiOjk5OTk5OTk5OTl9.", .unauthenticated),
    ] as [(String, OpenTDFError.Code)])
    func malformedTokensAreRefused(token: String, code: OpenTDFError.Code) {
        #expect(throws: OpenTDFError(code, "")) { try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: alice) }
    }

    @Test func malformedRequestBodiesAreRefusedAsAWhole() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy())
        let kao = manifest.encryptionInformation.keyAccess[0].jsonValue
        let policy = manifest.encryptionInformation.policy
        let rsaPEM = F.clientRSA.publicKey.pemRepresentation
        let weakRSA = "-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAMq1zQ0hUq2dZ3Q2wKXkV0r6b0Oa6b3kq4VJ9n9oP3c3dFvZ8bD2o5mVbK6nQ6l9V0e2h1bT5q5W2c8x4pJm3PECAwEAAQ==\n-----END PUBLIC KEY-----\n"
        let bodies: [JSONObject] = [
            F.requestBody(clientPublicKey: "", requests: [F.policyRequest(id: "p", policyBase64: policy, objects: [("k", kao)])]),
            F.requestBody(clientPublicKey: "not a pem", requests: [F.policyRequest(id: "p", policyBase64: policy, objects: [("k", kao)])]),
            F.requestBody(clientPublicKey: weakRSA, requests: [F.policyRequest(id: "p", policyBase64: policy, objects: [("k", kao)])]),
            F.requestBody(clientPublicKey: rsaPEM, requests: [F.policyRequest(id: "", policyBase64: policy, objects: [("k", kao)])]),
            F.requestBody(clientPublicKey: rsaPEM, requests: [F.policyRequest(id: "p", policyBase64: policy, objects: [("k", kao), ("k", kao)])]),
            F.requestBody(clientPublicKey: rsaPEM, requests: [
                F.policyRequest(id: "p", policyBase64: policy, objects: [("k", kao)]),
                F.policyRequest(id: "p", policyBase64: policy, objects: [("k", kao)]),
            ]),
            F.requestBody(clientPublicKey: rsaPEM, requests: [.string("x")]),
            JSONObject([("clientPublicKey", .string(rsaPEM))]),
            JSONObject([("clientPublicKey", .number(JSONNumber(1))), ("keyAccess", kao)]),
        ]
        for body in bodies {
            let token = try F.signedRequestToken(body)
            #expect(throws: OpenTDFError.self) { try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: alice) }
        }
        // A requestBody that is not JSON at all.
        let notJSON = try JWT.sign(claims: JSONObject([("requestBody", .string("{")), ("exp", JWT.numericDate(F.now.addingTimeInterval(60)))]),
                                   key: JWSSigningKey(p256: F.dpopKey))
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try F.service().rewrap(RewrapRequest(signedRequestToken: notJSON), entity: alice) }
    }

    @Test func malformedPoliciesAndObjectsFailPerObject() throws {
        let (manifest, _, _) = try F.tdf(kasKey: F.rsaKASKey, kid: "r2", policy: TDFPolicy())
        let kao = manifest.encryptionInformation.keyAccess[0]
        var wrongType = kao
        wrongType.type = .other("remote")
        var badBase64 = kao.jsonValue
        if case .object(let object) = badBase64 {
            badBase64 = .object(JSONObject(object.members.map { $0.key == "wrappedKey" ? ($0.key, .string("!!")) : ($0.key, $0.value) }))
        }
        let duplicatePolicy = Base64.encode(Data(#"{"uuid":"a","uuid":"b","body":{}}"#.utf8))
        let body = F.requestBody(clientPublicKey: F.clientRSA.publicKey.pemRepresentation, requests: [
            F.policyRequest(id: "ok", policyBase64: manifest.encryptionInformation.policy, objects: [
                ("type", wrongType.jsonValue), ("base64", badBase64), ("string", .string("x")),
            ]),
            F.policyRequest(id: "dup", policyBase64: duplicatePolicy, objects: [("k", kao.jsonValue)]),
            F.policyRequest(id: "notb64", policyBase64: "%%%", objects: [("k", kao.jsonValue)]),
        ])
        let token = try F.signedRequestToken(body)
        // A key access object that is a string is a shape error of the whole body.
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try F.service().rewrap(RewrapRequest(signedRequestToken: token), entity: alice) }

        let body2 = F.requestBody(clientPublicKey: F.clientRSA.publicKey.pemRepresentation, requests: [
            F.policyRequest(id: "ok", policyBase64: manifest.encryptionInformation.policy, objects: [
                ("type", wrongType.jsonValue), ("base64", badBase64),
            ]),
            F.policyRequest(id: "dup", policyBase64: duplicatePolicy, objects: [("k", kao.jsonValue)]),
            F.policyRequest(id: "notb64", policyBase64: "%%%", objects: [("k", kao.jsonValue)]),
        ])
        let response = try F.service().rewrap(RewrapRequest(signedRequestToken: try F.signedRequestToken(body2)), entity: alice)
        #expect(response.responses.flatMap(\.results).map(\.status) == ["fail", "fail", "fail", "fail"])
    }

    @Test func publicKeyServiceServesBothAlgorithmsAndKids() throws {
        let service = OpenTDFPublicKeyService(keys: F.keys)
        let rsa = try service.publicKey(PublicKeyRequest())
        #expect(rsa.kid == "r2")
        #expect(rsa.publicKey == F.kasRSA.publicKey.pemRepresentation)
        #expect(try service.publicKey(PublicKeyRequest(algorithm: "rsa:2048", fmt: "pkcs8")).kid == "r2")
        let ec = try service.publicKey(PublicKeyRequest(algorithm: "ec:secp256r1"))
        #expect(ec.kid == "e1")
        #expect(ec.publicKey == F.kasEC.publicKey.pemRepresentation)
        #expect(try service.publicKey(PublicKeyRequest(), kid: "r1").publicKey == F.kasRSARetired.publicKey.pemRepresentation)
        #expect(throws: OpenTDFError(.notFound, "")) { try service.publicKey(PublicKeyRequest(), kid: "e1") }
        #expect(throws: OpenTDFError(.notFound, "")) { try service.publicKey(PublicKeyRequest(), kid: "zz") }
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try service.publicKey(PublicKeyRequest(algorithm: "ec:secp384r1")) }
        #expect(throws: OpenTDFError(.malformedRequest, "")) { try service.publicKey(PublicKeyRequest(fmt: "jwk")) }
        let rsaOnly = OpenTDFPublicKeyService(keys: OpenTDFStaticKeyProvider([.init(kid: "r", key: .rsa(F.kasRSA))]))
        #expect(throws: OpenTDFError(.notFound, "")) { try rsaOnly.publicKey(PublicKeyRequest(algorithm: "ec:secp256r1")) }
    }

    // MARK: Helpers

    private func requestBody(_ manifest: TDFManifest, policyBase64: String? = nil, rsaClient: Bool = true) -> JSONObject {
        let info = manifest.encryptionInformation
        return F.requestBody(
            clientPublicKey: rsaClient ? F.clientRSA.publicKey.pemRepresentation : F.clientEC.publicKey.pemRepresentation,
            requests: [F.policyRequest(id: "policy", policyBase64: policyBase64 ?? info.policy,
                                       objects: info.keyAccess.enumerated().map { ("kao-\($0.offset)", $0.element.jsonValue) })])
    }

    private func rewrap(_ manifest: TDFManifest, policyBase64: String? = nil, entity: OpenTDFEntity,
                        service: OpenTDFRewrapService = F.service()) throws -> RewrapResponse {
        let token = try F.signedRequestToken(requestBody(manifest, policyBase64: policyBase64))
        return try service.rewrap(RewrapRequest(signedRequestToken: token), entity: entity)
    }
}
