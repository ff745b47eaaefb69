import Foundation
import KAS
import ToolSupport

/// Starts the HTTP server with the configuration, key ring and verifier, and blocks until a
/// stop signal.
enum ServerLauncher {
    static func run(configuration: KASConfiguration, keyRing: KeyRingHolder, verifier: BearerTokenVerifier,
                    console: Console) throws {
        throw ToolFailure("the HTTP server is not part of this build yet")
    }
}
