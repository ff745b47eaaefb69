import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import Testing

@Suite struct ContentKeyCacheTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func manifest(_ digest: String, key: UInt8 = 7) -> AdmittedManifest {
        AdmittedManifest(digest: digest, policy: MediaAssetPolicy(policyUUID: "u", dataAttributes: [], dissem: [], rules: nil),
                         iv: Data(count: 16), components: [AdmittedComponent(id: "video", kind: .video, key: SecretKey(data: Data(repeating: key, count: 16)))])
    }

    @Test func hitsUntilTheTTLAndThenZeroes() throws {
        let cache = ContentKeyCache(capacity: 4, timeToLive: 60)
        cache.insert(manifest("a"), now: now)
        let buffers = cache.buffers(for: "a")
        #expect(cache.lookup(digest: "a", now: now.addingTimeInterval(59))?.components.first?.key
                == SecretKey(data: Data(repeating: 7, count: 16)))
        #expect(cache.lookup(digest: "b", now: now) == nil)
        #expect(cache.lookup(digest: "a", now: now.addingTimeInterval(60)) == nil)
        #expect(buffers.count == 1 && buffers.allSatisfy { $0.bytes.allSatisfy { $0 == 0 } })
    }

    @Test func evictsTheLeastRecentlyUsedAndZeroesIt() {
        let cache = ContentKeyCache(capacity: 2, timeToLive: 600)
        cache.insert(manifest("a"), now: now)
        cache.insert(manifest("b"), now: now)
        _ = cache.lookup(digest: "a", now: now)
        let victim = cache.buffers(for: "b")
        cache.insert(manifest("c"), now: now)
        #expect(cache.count == 2)
        #expect(cache.lookup(digest: "b", now: now) == nil)
        #expect(cache.lookup(digest: "a", now: now) != nil)
        #expect(victim.allSatisfy { $0.bytes.allSatisfy { $0 == 0 } })
        let remaining = cache.buffers(for: "a") + cache.buffers(for: "c")
        #expect(remaining.allSatisfy { $0.bytes.contains { $0 != 0 } })
        cache.removeAll()
        #expect(remaining.allSatisfy { $0.bytes.allSatisfy { $0 == 0 } })
    }

    @Test func aLookupCopyOutlivesEviction() {
        let cache = ContentKeyCache(capacity: 1, timeToLive: 600)
        cache.insert(manifest("a"), now: now)
        let copy = cache.lookup(digest: "a", now: now)
        cache.insert(manifest("b", key: 9), now: now)
        #expect(copy?.components.first?.key == SecretKey(data: Data(repeating: 7, count: 16)))
    }
}
