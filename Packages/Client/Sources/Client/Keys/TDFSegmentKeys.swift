import MediaDRMCrypto
import MediaDRMFPSv2
import Foundation
import MediaDRMTDF

/// The Standard TDF segments of a tdf-hls stream: fetched, keyed and verified ahead of the
/// output. When a segment's key is missing, the archives of the next `lookahead` segments of
/// every component are fetched and all their keys asked for in ONE bulk rewrap. Before any
/// plaintext is returned a segment's policy binding, root signature and segment hashes are
/// verified (`TDFArchiveReader.decrypt`).
final class TDFSegmentKeys: ComponentSegments, @unchecked Sendable {
    struct Component {
        let id: String
        let segments: [String]
    }

    private let loader: any ResourceLoader
    private let components: [Component]
    private let rewrap: OpenTDFRewrapClient
    private let acceptedKeyService: String?
    private let lookahead: Int
    private let clock: any PlaybackClock
    private let progress: (@Sendable (PlaybackEvent) -> Void)?
    private let lock = NSLock()
    private var archives: [String: TDFArchiveReader] = [:]
    private var keys: [String: SecretKey] = [:]
    private(set) var rewrapCount = 0
    /// Where the bulk rewraps go: the OpenTDF route, or the playback's media session when the
    /// policy carries media rules (set before the first prefetch).
    private var route = OpenTDFRewrapClient.Route.openTDF

    static let maximumSegmentBytes = 64 << 20

    init(loader: any ResourceLoader, components: [Component], rewrap: OpenTDFRewrapClient, keyServiceURL: String,
         lookahead: Int, clock: any PlaybackClock, progress: (@Sendable (PlaybackEvent) -> Void)?) {
        self.loader = loader
        self.components = components
        self.rewrap = rewrap
        self.acceptedKeyService = KeyServiceURL.normalize(keyServiceURL)
        self.lookahead = max(1, lookahead)
        self.clock = clock
        self.progress = progress
    }

    private static func itemID(_ component: Int, _ index: Int, _ components: [Component]) -> String {
        "\(components[component].id)-\(index)"
    }

    /// The policy text of the first segment (which every segment of a tdf-hls stream carries),
    /// read from its archive, which is kept for the first prefetch.
    func firstPolicy() throws(PlaybackError) -> String {
        lock.lock()
        defer { lock.unlock() }
        guard let first = components.first?.segments.first else {
            throw PlaybackError(.invalidSource, "the tdf-hls stream has no segment")
        }
        let id = Self.itemID(0, 0, components)
        if let cached = archives[id] { return cached.manifest.encryptionInformation.policy }
        let reader = try open(first)
        archives[id] = reader
        return reader.manifest.encryptionInformation.policy
    }

    /// Sends every later rewrap through this media session (`POST /media/v1/rewrap`).
    func useMediaSession(_ sessionID: String) {
        lock.withLock { route = .mediaSession(sessionID) }
    }

    /// Makes sure the keys of segments `index ..< index + lookahead` of every component are held.
    func prefetch(from index: Int) throws(PlaybackError) {
        lock.lock()
        defer { lock.unlock() }
        try prefetchLocked(from: index)
    }

    private func prefetchLocked(from index: Int) throws(PlaybackError) {
        var items: [OpenTDFRewrapClient.Item] = []
        for offset in 0..<lookahead {
            for (c, component) in components.enumerated() where index + offset < component.segments.count {
                let id = Self.itemID(c, index + offset, components)
                guard keys[id] == nil else { continue }
                let reader: TDFArchiveReader
                if let cached = archives[id] {
                    reader = cached
                } else {
                    reader = try open(component.segments[index + offset])
                    archives[id] = reader
                }
                let keyAccess = reader.manifest.encryptionInformation.keyAccess
                guard keyAccess.count == 1, let object = keyAccess.first else {
                    throw PlaybackError(.invalidSource, "a tdf-hls segment does not have exactly one key access object")
                }
                guard let accepted = acceptedKeyService, KeyServiceURL.normalize(object.url) == accepted else {
                    throw PlaybackError(.invalidSource, "a tdf-hls segment names a key service other than the one given")
                }
                items.append(.init(id: id, policy: reader.manifest.encryptionInformation.policy, keyAccess: object))
            }
        }
        guard !items.isEmpty else { return }
        let began = clock.now()
        let delivered = try rewrap.rewrap(items, route: route)
        rewrapCount += 1
        for (id, key) in delivered { keys[id] = key }
        progress?(.segmentKeysDelivered(count: delivered.count, seconds: clock.now() - began))
    }

    private func open(_ name: String) throws(PlaybackError) -> TDFArchiveReader {
        let data = try loader.load(name, maxBytes: Self.maximumSegmentBytes)
        do {
            return try TDFArchiveReader(data: data)
        } catch {
            throw PlaybackError(.integrity, "tdf-hls segment \(name) is not a readable Standard TDF: \(error.reason)")
        }
    }

    func segment(component: Int, index: Int) throws(PlaybackError) -> [UInt8]? {
        guard components.indices.contains(component), index < components[component].segments.count else { return nil }
        return try clearSegment(component: component, index: index)
    }

    /// The clear CMAF fragment of segment `index` of component `component`, verified.
    func clearSegment(component: Int, index: Int) throws(PlaybackError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        do {
            let id = Self.itemID(component, index, components)
            if keys[id] == nil { try prefetchLocked(from: index) }
            guard let key = keys.removeValue(forKey: id), let reader = archives.removeValue(forKey: id),
                  let object = reader.manifest.encryptionInformation.keyAccess.first else {
                throw PlaybackError(.malformed, "a segment key was not delivered")
            }
            guard reader.isPolicyBindingValid(object, key: key) else {
                throw PlaybackError(.integrity, "a tdf-hls segment's policy binding does not verify")
            }
            do {
                return [UInt8](try reader.decrypt(payloadKey: key))
            } catch {
                throw PlaybackError(.integrity, "a tdf-hls segment failed verification: \(error.reason)")
            }
        }
    }
}
