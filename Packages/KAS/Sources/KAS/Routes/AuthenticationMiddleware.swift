import Foundation
import KASDomain
import KASHTTP
import KASObservability
import MediaDRMJSON

/// Requires a valid `Authorization: Bearer <JWT>` on every route it wraps. Without one the
/// request is answered 401 with the fixed reason `unauthorized` and `WWW-Authenticate: Bearer`;
/// a token that was sent but refused adds `error="invalid_token"` (RFC 6750 §3.1) and an
/// `error_description` of `expired` (a genuine token past its `exp`: the viewer needs a fresh
/// one) or `invalid` (every other cause: which issuer, audience or signature check failed is
/// never revealed). The handler never runs. With one, the context gets the identity and the
/// viewer hash (`Identity.viewerHash`: of the issuer and `sub`, truncated) that logs carry instead of the subject.
///
/// Tokens are read from the header only, never from the query string or body. Refusals are
/// logged (when a sink is given) and counted (when metrics are given) by cause only: never the
/// token, the subject or any claim.
public struct AuthenticationMiddleware: HTTPMiddleware {
    private let verifier: BearerTokenVerifier
    private let sink: (any LogSink)?
    private let metrics: Metrics?

    public init(verifier: BearerTokenVerifier, sink: (any LogSink)? = nil, metrics: Metrics? = nil) {
        self.verifier = verifier
        self.sink = sink
        self.metrics = metrics
    }

    public func handle(_ request: ServerRequest, context: inout KASRequestContext,
                       next: (ServerRequest, inout KASRequestContext) throws -> ServerResponse) throws -> ServerResponse {
        let identity: Identity
        do {
            identity = try verifier.verify(authorizationHeaderValues: request.headers.values(for: "Authorization"))
        } catch {
            refused(error, context: context)
            throw Self.unauthorized(error)
        }
        context.identity = identity
        context.viewerHash = identity.viewerHash
        return try next(request, &context)
    }

    /// The 401 every refusal gets; the body's reason is the same whatever the cause, and the
    /// challenge says only "no token", "expired" or "invalid".
    public static func unauthorized(_ error: IdentityError) -> HTTPError {
        let challenge: String
        switch (error.code, error.tokenError) {
        case (.missingToken, _): challenge = "Bearer"
        case (.invalidToken, .expired?): challenge = #"Bearer error="invalid_token", error_description="expired""#
        default: challenge = #"Bearer error="invalid_token", error_description="invalid""#
        }
        return HTTPError(.unauthorized, reason: "unauthorized", headers: ["WWW-Authenticate": challenge])
    }

    private func refused(_ error: IdentityError, context: KASRequestContext) {
        let cause = error.tokenError.map { "\(error.code.rawValue).\($0.rawValue)" } ?? error.code.rawValue
        metrics?.increment("auth_failures_total", help: "Requests refused 401, by cause.", labels: [("cause", cause)])
        guard let sink else { return }
        let line: JSONValue = .object(JSONObject([
            ("ts", .string(LogTimestamp.now())),
            ("event", .string("auth_refused")),
            ("requestId", .string(context.requestID)),
            ("route", .string(context.route ?? "unmatched")),
            ("cause", .string(cause)),
        ]))
        sink.write(JSONWriter.string(line, options: []))
    }
}
