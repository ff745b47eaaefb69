import KASDomain
import KASHTTP

/// The request context of the KAS's routes: the HTTP layer's `CoreRequestContext` and the
/// viewer of the request's verified bearer token, set by `AuthenticationMiddleware` (made once
/// from the verified claims, docs/protocol.md "Identity"); nil on public routes. Route adapters
/// take the viewer from here and hand it to the services as a value.
public struct KASRequestContext: RequestContext {
    public var core: CoreRequestContext
    public var identity: Identity?

    public init(core: CoreRequestContext) {
        self.core = core
        self.identity = nil
    }
}
