import KASObservability
import MediaDRMJSON

/// Writes one JSON line per request:
/// `{"ts","event":"request","requestId","method","route","status","latencyMs","viewer"?}`.
///
/// Only values the server chose go in: the route pattern (not the path, which carries session
/// ids), a known method name, the status, the latency, the request id and the viewer hash.
/// Headers, tokens, query strings and bodies are never read by this middleware.
/// Install it outermost so it sees the status the error mapping produced.
public struct RequestLogMiddleware<Context: RequestContext>: HTTPMiddleware {
    private let sink: any LogSink

    public init(sink: any LogSink) { self.sink = sink }

    public func handle(_ request: ServerRequest, context: inout Context,
                       next: (ServerRequest, inout Context) throws -> ServerResponse) throws -> ServerResponse {
        try observing(request, context: &context, next: next) { status, context in
            log(request: request, context: context, status: status)
        }
    }

    private func log(request: ServerRequest, context: Context, status: HTTPStatus) {
        let millis = Double(context.elapsed.components.attoseconds) / 1e15
            + Double(context.elapsed.components.seconds) * 1000
        var members: [(String, JSONValue)] = [
            ("ts", .string(LogTimestamp.now())),
            ("event", .string("request")),
            ("requestId", .string(context.requestID)),
            ("method", .string(request.method.loggable)),
            ("route", .string(context.route ?? "unmatched")),
            ("status", .number(JSONNumber(status.code))),
            ("latencyMs", .number(JSONNumber((millis * 1000).rounded() / 1000))),
        ]
        if let viewer = context.viewerHash { members.append(("viewer", .string(viewer))) }
        sink.write(JSONWriter.string(.object(JSONObject(members)), options: []))
    }
}
