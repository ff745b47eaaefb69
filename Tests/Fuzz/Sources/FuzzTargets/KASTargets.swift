// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import MediaDRMZIP

/// The KAS's decoders and admission, each reached the way a request reaches it. A hostile body
/// must get a client-error status: a 500 is a finding.
enum KASTargets {
    /// Connect unary calls: the first input byte picks the method (bit 0: PublicKey or Rewrap)
    /// and whether the body is sent gzip-encoded (bit 1); the rest is the body, decoded by the
    /// route's gzip decoder and protobuf reader. The decoders are also run on their own, so the
    /// round trip of what they accept is checked.
    static let proto = FuzzTarget("kas-proto", "Connect routes: gzip decoder and protobuf messages") { input throws(FuzzViolation) in
        guard let selector = input.first else { return .refused }
        let body = Array(input.dropFirst())
        let gzip = selector & 2 != 0
        if gzip {
            if let inflated = try? GzipDecoder.decompress(body), inflated.count > GzipDecoder.defaultMaximumOutput {
                throw FuzzViolation("kas-proto", "the gzip decoder returned more than its bound")
            }
        } else {
            if let request = try? RewrapRequest(protobuf: body),
               (try? RewrapRequest(protobuf: request.protobufData)) != request {
                throw FuzzViolation("kas-proto", "a RewrapRequest does not round-trip")
            }
            if let request = try? PublicKeyRequest(protobuf: body),
               (try? PublicKeyRequest(protobuf: request.protobufData)) != request {
                throw FuzzViolation("kas-proto", "a PublicKeyRequest does not round-trip")
            }
            if let response = try? RewrapResponse(protobuf: body),
               (try? RewrapResponse(protobuf: response.protobufData)) != response {
                throw FuzzViolation("kas-proto", "a RewrapResponse does not round-trip")
            }
        }
        guard let kas = KASFixture.shared else { return .refused }
        var headers = [("Content-Type", "application/proto"), ("Connect-Protocol-Version", "1")]
        if gzip { headers.append(("Content-Encoding", "gzip")) }
        let path = selector & 1 == 0 ? "/kas.AccessService/PublicKey" : "/kas.AccessService/Rewrap"
        let status = kas.respond(method: .post, path: path, headers: headers, body: body)
        guard status.code < 500 else { throw FuzzViolation("kas-proto", "the KAS answered \(status.code)") }
        return status == .ok ? .accepted : .refused
    }

    /// §10.7 manifest admission with the fixture key ring: the closed schema, bindings, the key
    /// unwrap and the key bindings.
    static let manifest = FuzzTarget("kas-manifest", "ManifestAdmission.admit with the fixture key ring") { input throws(FuzzViolation) in
        guard let admission = manifestAdmission else { return .refused }
        return (try? admission.admit(input)) != nil ? .accepted : .refused
    }

    static let manifestAdmission: ManifestAdmission? = KASFixture.keyRing.flatMap {
        ManifestAdmission(acceptedKASURLs: [FuzzFixtures.keyServiceURL], unwrapper: KeyRingMediaUnwrapper(KeyRingHolder($0)))
    }

    /// The media routes' bodies. Input: a first line naming the route (`POST /media/v1/key-request`,
    /// `POST /media/v1/session/start`), then the body. A key request whose `sessionId` is
    /// `$session` is sent with a live session of the fixture viewer for its `assetId` and
    /// `component`, started as a player would before it asks for a key, so the seeds reach the
    /// manifest admission and the policy decision behind the session check.
    static let mediaRoutes = FuzzTarget("kas-media-routes", "media routes: session start and key request bodies") { input throws(FuzzViolation) in
        guard let newline = input.firstIndex(of: 0x0A),
              let line = String(validating: input[..<newline], as: UTF8.self),
              let route = mediaRoutePaths.first(where: { "POST " + $0 == line }),
              let kas = KASFixture.shared else { return .refused }
        var body = Array(input[(newline + 1)...])
        if route == "/media/v1/key-request" { body = withLiveSession(body, kas) }
        let status = kas.respond(method: .post, path: route, headers: [("Content-Type", "application/json")], body: body)
        guard status.code < 500 || status.code == 503 else {
            throw FuzzViolation("kas-media-routes", "the KAS answered \(status.code)")
        }
        return status == .ok || status == .created ? .accepted : .refused
    }

    static let mediaRoutePaths = ["/media/v1/session/start", "/media/v1/key-request"]

    /// The body with `"sessionId": "$session"` replaced by a live session id, when it names an
    /// asset and component; otherwise unchanged.
    private static func withLiveSession(_ body: [UInt8], _ kas: KASFixture) -> [UInt8] {
        guard case .object(var object)? = try? JSONParser.parse(body),
              case .string("$session")? = object["sessionId"],
              case .string(let asset)? = object["assetId"],
              case .string(let component)? = object["component"],
              let session = kas.session(asset: asset, component: component) else { return body }
        object["sessionId"] = .string(session)
        return JSONWriter.bytes(.object(object))
    }
}
