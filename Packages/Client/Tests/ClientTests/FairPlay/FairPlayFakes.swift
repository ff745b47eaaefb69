import Foundation
import Testing
@testable import Client

/// An AVContentKeyRequest stand-in: its SPC is its own name, and it records what it was sent.
final class FakeKeyRequest: FairPlayKeyRequest, @unchecked Sendable {
    let name: String
    let keyIdentifier: String?
    private let lock = NSLock()
    private var _responses: [FairPlayKeyResponse] = []
    private var _spcRequests: [(certificate: Data, contentIdentifier: Data)] = []

    init(name: String, keyIdentifier: String?) {
        self.name = name
        self.keyIdentifier = keyIdentifier
    }

    var responses: [FairPlayKeyResponse] { lock.withLock { _responses } }
    var spcRequests: [(certificate: Data, contentIdentifier: Data)] { lock.withLock { _spcRequests } }

    func makeSPC(certificate: Data, contentIdentifier: Data) async throws(PlaybackError) -> Data {
        lock.withLock { _spcRequests.append((certificate, contentIdentifier)) }
        return Data("spc-\(name)".utf8)
    }

    func process(_ response: FairPlayKeyResponse) {
        lock.withLock { _responses.append(response) }
    }
}

/// The key service stand-in: each CKC request waits until the test releases it (by the SPC's
/// request name), then answers `ckc-<name>` or, for the names in `refused`, a 403.
actor CKCGate {
    private var released: Set<String> = []
    private var waiting: [String: CheckedContinuation<Void, Never>] = [:]
    private(set) var sent: [(component: String, sessionID: String, manifest: Data, spc: Data)] = []

    func wait(_ name: String) async {
        if released.contains(name) { return }
        await withCheckedContinuation { waiting[name] = $0 }
    }

    func release(_ name: String) {
        released.insert(name)
        waiting.removeValue(forKey: name)?.resume()
    }

    func record(_ component: String, _ sessionID: String, _ manifest: Data, _ spc: Data) {
        sent.append((component, sessionID, manifest, spc))
    }
}

struct GatedCKCSource: FairPlayCKCSource {
    let gate: CKCGate
    let refused: Set<String>

    func requestCKC(assetID: String, component: String, sessionID: String, manifest: Data,
                    spc: Data) async throws(PlaybackError) -> (ckc: Data, leaseSeconds: Int?) {
        let name = String(decoding: spc.dropFirst("spc-".count), as: UTF8.self)
        await gate.record(component, sessionID, manifest, spc)
        await gate.wait(name)
        if refused.contains(name) { throw PlaybackError(.denied, "not entitled", status: 403) }
        return (Data("ckc-\(name)".utf8), 3600)
    }
}

/// Every report the delegate got, in order.
final class ReportRecorder: ContentKeySessionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _reports: [String] = []

    var reports: [String] { lock.withLock { _reports } }

    func onKeyDelivered(components: [String]) {
        lock.withLock { _reports.append("delivered " + components.joined(separator: ",")) }
    }

    func onKeyFailed(error: PlaybackError) {
        lock.withLock { _reports.append("failed \(error.code.rawValue)") }
    }
}
