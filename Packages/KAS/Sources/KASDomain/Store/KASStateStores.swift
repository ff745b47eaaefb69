import Foundation
import KASRedis

/// Every store the KAS keeps state in, opened together from the configuration (docs/kas.md):
///
/// - `store.url` unset (the default, nothing to configure): one node. The media store, the
///   catalog and the playbacks in `<dataDir>/media.sqlite` (the licence URLs' key in
///   `<dataDir>/license-url.key`), the offline licences in `<dataDir>/offline.sqlite`.
/// - `store.url = redis://…`: several nodes share one Redis. One `RedisClient`, its pool sized
///   to the HTTP worker threads (each handler holds at most one connection at a time), serves
///   every store; it is checked at start-up (reachable, password accepted, `noeviction`).
///
/// The per-viewer rate limits (the rewrap, key-request, session-start and playback-start
/// buckets) are media-store records, so they are shared across nodes with the media store. The
/// sessions and the playbacks are kept within the `store` settings' bounds (`RecordBounds`).
public struct KASStateStores: Sendable {
    /// Sessions, first plays, stream limits and rate buckets.
    public let media: any MediaStore
    /// The titles the delivery routes serve.
    public let catalog: any CatalogStore
    /// The offline licences.
    package let offline: any OfflineLicenseStore
    /// The playbacks of the delivery routes.
    package let playbacks: any PlaybackStore
    /// Where the state lives, for messages: the SQLite data directory or the redacted Redis URL.
    public let location: String
    /// The stores (named for messages) still keying viewers by subject alone (`ViewerKeyScheme`):
    /// `open` refuses them; empty once every store keys by issuer and subject.
    package let subjectKeyed: [String]
    private let closers: [@Sendable () -> Void]

    /// Closes every store (after the server stopped taking requests).
    public func close() {
        for close in closers { close() }
    }

    /// Opens the stores `configuration.store` names; `poolSize` is the HTTP worker threads (the
    /// Redis pool's size unless `store.poolSize` says otherwise). A store that cannot be opened
    /// is a start-up error naming it (a Redis by its redacted URL, never its password), and so is
    /// a store still keyed by subject alone, with the `kas store rekey` command to run.
    public static func open(_ configuration: KASConfiguration, layout: KASDataDirectory,
                            poolSize: Int) throws(KASApplicationError) -> KASStateStores {
        let stores: KASStateStores
        if let url = configuration.store.url {
            stores = try openRedis(url, poolSize: configuration.store.poolSize ?? poolSize,
                                   timeout: TimeInterval(configuration.store.timeoutSeconds), settings: configuration.store)
        } else {
            stores = try openSQLite(layout, settings: configuration.store)
        }
        guard stores.subjectKeyed.isEmpty else {
            stores.close()
            throw ViewerKeyScheme.refusal(stores.subjectKeyed, configuration: configuration)
        }
        return stores
    }

    /// The shared stores in one Redis, after `checkServer` (reachable, password accepted,
    /// `maxmemory-policy noeviction`: an evicting Redis would silently drop first-play records).
    static func openRedis(_ url: RedisURL, poolSize: Int, timeout: TimeInterval,
                          settings: KASConfiguration.StoreSettings = .init()) throws(KASApplicationError) -> KASStateStores {
        let client = RedisClient(url: url, poolSize: max(1, poolSize), timeout: timeout)
        do {
            try client.checkServer()
        } catch {
            client.close()
            // The client's reasons name the store already; say which one when a reason does not.
            let named = error.reason.contains(url.redacted) ? error.reason : "\(url.redacted): \(error.reason)"
            throw KASApplicationError("cannot use the state store: \(named)")
        }
        let media = RedisMediaStore(client: client, bounds: .sessions(settings))
        let scheme: ViewerKeyScheme
        do {
            scheme = try ViewerKeyScheme.prepare(client, prefix: media.keyPrefix)
        } catch {
            client.close()
            throw KASApplicationError("cannot use the state store: \(error.reason)")
        }
        return KASStateStores(media: media, catalog: RedisCatalogStore(client: client),
                              offline: RedisOfflineLicenseStore(client: client),
                              playbacks: RedisPlaybackStore(client: client, bounds: .playbacks(settings)),
                              location: url.redacted, subjectKeyed: scheme == .subjectOnly ? ["the Redis store \(url.redacted)"] : [],
                              closers: [client.close])
    }

    /// The single-node stores in the data directory.
    static func openSQLite(_ layout: KASDataDirectory,
                           settings: KASConfiguration.StoreSettings = .init()) throws(KASApplicationError) -> KASStateStores {
        try layout.prepare()
        let media: SQLiteMediaStore
        do {
            media = try SQLiteMediaStore(path: layout.mediaStore, bounds: .sessions(settings))
        } catch {
            throw KASApplicationError("cannot open the media store '\(layout.mediaStore)': \(error.reason)")
        }
        let catalog: SQLiteCatalog
        do {
            catalog = try SQLiteCatalog(path: layout.mediaStore)
        } catch {
            media.close()
            throw KASApplicationError("cannot open the catalog in '\(layout.mediaStore)': \(error.reason)")
        }
        let offline: SQLiteOfflineStore
        do {
            offline = try SQLiteOfflineStore(path: layout.offlineStore)
        } catch {
            catalog.close()
            media.close()
            throw KASApplicationError("cannot open the offline store '\(layout.offlineStore)': \(error.reason)")
        }
        let playbacks: SQLitePlaybackStore
        var subjectKeyed: [String] = []
        do {
            playbacks = try SQLitePlaybackStore(media: media, licenseURLKeyFile: layout.licenseURLKey,
                                                bounds: .playbacks(settings))
            if try media.locked({ () throws(StoreError) in try ViewerKeyScheme.stored(in: media.database) }).scheme == .subjectOnly {
                subjectKeyed.append("the media store '\(layout.mediaStore)'")
            }
            if try ViewerKeyScheme.stored(in: offline.database).scheme == .subjectOnly {
                subjectKeyed.append("the offline store '\(layout.offlineStore)'")
            }
        } catch {
            offline.close()
            catalog.close()
            media.close()
            throw KASApplicationError("cannot open the playbacks in '\(layout.mediaStore)': \(error.reason)")
        }
        return KASStateStores(media: media, catalog: catalog, offline: offline, playbacks: playbacks,
                              location: layout.path, subjectKeyed: subjectKeyed, closers: [catalog.close, offline.close, media.close])
    }
}
