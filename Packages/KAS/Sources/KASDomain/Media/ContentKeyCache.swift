import MediaDRMCrypto
import Foundation

/// Admitted manifests kept in memory by manifest digest, so a popular asset costs one RSA
/// operation per TTL rather than one per viewer. Every per-request check (session, component,
/// asset id, policy) still runs on a hit; only the manifest checks and the unwrap are reused, and
/// only for byte-identical manifests.
///
/// Bounded (least recently used evicted first) and with a TTL. The cached key bytes live in
/// buffers this cache owns and overwrites with zeros when an entry is evicted, expires or the
/// cache is cleared; a lookup hands out its own copies, so zeroing never races a request.
final class ContentKeyCache: @unchecked Sendable {
    let capacity: Int
    let timeToLive: TimeInterval

    final class KeyBuffer {
        var bytes: [UInt8]
        init(_ key: SecretKey) { bytes = key.withUnsafeBytes { Array($0) } }
        func zero() {
            bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                // memset through a C call: the compiler cannot prove the store dead and drop it.
                _ = memset(base, 0, buffer.count)
            }
        }
    }

    private struct Entry {
        var manifest: AdmittedManifest   // components carry no key (see `stripped`)
        var keys: [KeyBuffer]
        var expires: Date
        var lastUse: UInt64
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int = 1024, timeToLive: TimeInterval = 300) {
        self.capacity = max(0, capacity)
        self.timeToLive = timeToLive
    }

    deinit { for entry in entries.values { entry.keys.forEach { $0.zero() } } }

    var count: Int { lock.withLock { entries.count } }

    func lookup(digest: String, now: Date) -> AdmittedManifest? {
        lock.withLock {
            guard var entry = entries[digest] else { return nil }
            guard entry.expires > now else {
                entry.keys.forEach { $0.zero() }
                entries[digest] = nil
                return nil
            }
            clock += 1
            entry.lastUse = clock
            entries[digest] = entry
            let components = zip(entry.manifest.components, entry.keys).map { component, buffer in
                AdmittedComponent(id: component.id, kind: component.kind, key: SecretKey(data: buffer.bytes))
            }
            return AdmittedManifest(digest: entry.manifest.digest, policy: entry.manifest.policy, iv: entry.manifest.iv,
                                    components: components)
        }
    }

    func insert(_ manifest: AdmittedManifest, now: Date) {
        guard capacity > 0 else { return }
        let keys = manifest.components.map { KeyBuffer($0.key) }
        let stripped = AdmittedManifest(
            digest: manifest.digest, policy: manifest.policy, iv: manifest.iv,
            components: manifest.components.map { AdmittedComponent(id: $0.id, kind: $0.kind, key: SecretKey(data: [])) })
        lock.withLock {
            clock += 1
            if let old = entries[manifest.digest] { old.keys.forEach { $0.zero() } }
            entries[manifest.digest] = Entry(manifest: stripped, keys: keys, expires: now.addingTimeInterval(timeToLive),
                                             lastUse: clock)
            // Expired entries go first, then the least recently used.
            for (digest, entry) in entries where entry.expires <= now {
                entry.keys.forEach { $0.zero() }
                entries[digest] = nil
            }
            while entries.count > capacity, let victim = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                victim.value.keys.forEach { $0.zero() }
                entries[victim.key] = nil
            }
        }
    }

    /// The live buffers of an entry, for tests that watch them being zeroed.
    func buffers(for digest: String) -> [KeyBuffer] { lock.withLock { entries[digest]?.keys ?? [] } }

    func removeAll() {
        lock.withLock {
            for entry in entries.values { entry.keys.forEach { $0.zero() } }
            entries.removeAll()
        }
    }
}
