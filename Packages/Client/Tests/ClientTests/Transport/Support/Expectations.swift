import Client
import Testing

/// The TransportError a call threw, or nil when it succeeded. Any other error type is a test
/// failure (recorded) and also returns nil.
func transportError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> TransportError? {
    do {
        _ = try body()
        return nil
    } catch {
        guard let transport = error as? TransportError else {
            Issue.record("expected a TransportError, got \(type(of: error))", sourceLocation: sourceLocation)
            return nil
        }
        return transport
    }
}

func asyncTransportError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> TransportError? {
    do {
        _ = try await body()
        return nil
    } catch {
        guard let transport = error as? TransportError else {
            Issue.record("expected a TransportError, got \(type(of: error))", sourceLocation: sourceLocation)
            return nil
        }
        return transport
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
