import KASObservability
/// Records every request into `Metrics` by route pattern and final status. Install it outside
/// `ErrorMiddleware` (or thrown errors are counted by their `HTTPError` status, else 500).
public struct MetricsMiddleware<Context: RequestContext>: HTTPMiddleware {
    private let metrics: Metrics

    public init(metrics: Metrics) { self.metrics = metrics }

    public func handle(_ request: ServerRequest, context: inout Context,
                       next: (ServerRequest, inout Context) throws -> ServerResponse) throws -> ServerResponse {
        try observing(request, context: &context, next: next) { status, context in
            metrics.recordRequest(route: context.route ?? "unmatched", method: request.method.loggable, status: status.code,
                                  latency: context.elapsed)
        }
    }
}
