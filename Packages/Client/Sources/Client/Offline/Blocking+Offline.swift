extension Blocking {
    /// `run` for the offline library's work: its own typed failure is carried through the thread
    /// bridge; a stop or cancellation becomes `failure`'s code with the bridge's reason.
    static func run<T: Sendable>(orFail failure: OfflineError.Code,
                                 _ work: @escaping @Sendable () throws(OfflineError) -> T) async throws(OfflineError) -> T {
        let outcome: Result<T, OfflineError>
        do {
            outcome = try await run { () throws(PlaybackError) -> Result<T, OfflineError> in
                Result { () throws(OfflineError) -> T in try work() }
            }
        } catch {
            throw OfflineError(failure, error.reason, playback: error)
        }
        return try outcome.get()
    }
}
