import Client
import Foundation
import MediaDRMToolSupport

/// What the offline verbs (`download`, `library`, `play --title`, `license`, `delete`) share:
/// the library option, the key-service transport options, the clock, and how an offline
/// failure becomes the tool's message.
enum OfflineOptions {
    static let library = ToolOption.single("library", valueName: "dir",
                                           help: "The offline library (default $XDG_DATA_HOME/mediadrm, else ~/.local/share/mediadrm).")
    static let ca = ToolOption.single("ca", valueName: "file", help: "PEM certificates to trust instead of the system store.")
    static let pin = ToolOption.single("pin", valueName: "sha256//...", help: "Public-key pin of the KAS (libcurl form).")

    #if DEBUG
    /// For tests only (docs/offline.md), and only in debug builds (the end-to-end suite's): the
    /// wall clock, in seconds since the epoch, that the offline verbs use instead of the
    /// system's. The library's high-water mark applies to it as to the real clock, so it cannot
    /// extend a licence either. A release `player` never reads it.
    static let clockVariable = "MEDIADRM_PLAYER_TEST_NOW"
    #endif

    static func openLibrary(_ arguments: ParsedArguments) throws -> OfflineLibrary {
        guard let path = arguments.value("library") ?? OfflineLibrary.defaultPath() else {
            throw UsageError("no library path: set HOME or XDG_DATA_HOME, or give --library DIR")
        }
        return try run { () throws(OfflineError) in try OfflineLibrary(path: path) }
    }

    static func credential(_ arguments: ParsedArguments) throws -> Credential {
        do {
            return try Credential(bearerToken: try arguments.requiredValue("token"))
        } catch let error as TransportError {
            throw UsageError("--token: \(error.reason)")
        }
    }

    static func client(_ arguments: ParsedArguments) throws -> HTTPClient {
        var http = HTTPClientConfiguration()
        if let ca = arguments.value("ca") {
            http.trustedCertificatesPEM = try FileInput.read(ca, role: "CA file", maxBytes: 4 << 20)
        }
        http.publicKeyPin = arguments.value("pin")
        do {
            return try HTTPClient(configuration: http)
        } catch {
            throw UsageError(error.reason)
        }
    }

    static func now() throws -> Int64 {
        #if DEBUG
        if let text = ProcessInfo.processInfo.environment[clockVariable] {
            guard let value = Int64(text), value > 0 else {
                throw UsageError("\(clockVariable) must be seconds since the epoch")
            }
            return value
        }
        #endif
        return Int64(Date().timeIntervalSince1970.rounded(.down))
    }

    /// Runs offline work, turning its failure into the tool's message.
    static func run<T>(_ work: () throws(OfflineError) -> T) throws -> T {
        do {
            return try work()
        } catch {
            throw failure(error)
        }
    }

    /// Awaits offline work on a task, from a synchronous verb.
    static func await<T: Sendable>(_ work: @escaping @Sendable () async throws(OfflineError) -> T) throws -> T {
        let box = OutcomeBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(OfflineError) {
                box.outcome = .success(try await work())
            } catch {
                box.outcome = .failure(error)
            }
            done.signal()
        }
        done.wait()
        switch box.outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw failure(error)
        case nil: throw ToolFailure("the work ended without a result")
        }
    }

    static func failure(_ error: OfflineError) -> ToolFailure {
        var text = "\(error.code.rawValue): \(error.reason)"
        if let refusal = error.playback?.refusal { text += " [refusal \(refusal.code)]" }
        return ToolFailure(text)
    }

    static func date(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

final class OutcomeBox<T>: @unchecked Sendable {
    var outcome: Result<T, OfflineError>?
}
