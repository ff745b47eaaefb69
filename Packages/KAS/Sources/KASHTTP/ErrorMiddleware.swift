import KASObservability
import MediaDRMJSON

/// Turns a thrown `HTTPError` into its JSON response and any other error into a 500 with a fixed
/// reason. Other errors' text is never sent: it can hold paths, key ids or library messages. When
/// a sink is given, an unexpected error is logged by its type name only.
public struct ErrorMiddleware<Context: RequestContext>: HTTPMiddleware {
    private let sink: (any LogSink)?

    public init(sink: (any LogSink)? = nil) { self.sink = sink }

    public func handle(_ request: ServerRequest, context: inout Context,
                       next: (ServerRequest, inout Context) throws -> ServerResponse) throws -> ServerResponse {
        do {
            return try next(request, &context)
        } catch {
            if let httpError = error as? HTTPError { return httpError.response }
            if let sink {
                let line: JSONValue = .object(JSONObject([
                    ("ts", .string(LogTimestamp.now())),
                    ("event", .string("unhandled_error")),
                    ("requestId", .string(context.requestID)),
                    ("route", .string(context.route ?? "unmatched")),
                    ("errorType", .string(String(describing: type(of: error)))),
                ]))
                sink.write(JSONWriter.string(line, options: []))
            }
            return HTTPError.internalError.response
        }
    }
}
