/// Connect protocol error codes and their HTTP statuses (connectrpc.com/docs/protocol, "Error
/// Codes"). Error bodies are JSON `{"code": ..., "message": ...}` with Content-Type
/// `application/json`, whatever codec the request used.
package enum ConnectCode: String, Sendable, CaseIterable {
    case canceled
    case unknown
    case invalidArgument = "invalid_argument"
    case deadlineExceeded = "deadline_exceeded"
    case notFound = "not_found"
    case alreadyExists = "already_exists"
    case permissionDenied = "permission_denied"
    case resourceExhausted = "resource_exhausted"
    case failedPrecondition = "failed_precondition"
    case aborted
    case outOfRange = "out_of_range"
    case unimplemented
    case `internal`
    case unavailable
    case dataLoss = "data_loss"
    case unauthenticated

    public var httpStatus: Int {
        switch self {
        case .canceled: 499
        case .unknown: 500
        case .invalidArgument: 400
        case .deadlineExceeded: 504
        case .notFound: 404
        case .alreadyExists: 409
        case .permissionDenied: 403
        case .resourceExhausted: 429
        case .failedPrecondition: 400
        case .aborted: 409
        case .outOfRange: 400
        case .unimplemented: 501
        case .internal: 500
        case .unavailable: 503
        case .dataLoss: 500
        case .unauthenticated: 401
        }
    }
}
