// An embedder imports `KAS` alone: the application's configuration, stores, key ring and log
// sink are domain and observability types, and its router and server are HTTP types.
@_exported import KASDomain
@_exported import KASHTTP
@_exported import KASObservability
