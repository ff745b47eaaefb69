import Foundation
import MediaDRMJSON
import MediaDRMMedia

extension MediaService {
    /// The media policy decision of a tdf-hls rewrap (`POST /media/v1/rewrap`), made exactly as
    /// the key request makes it: the same first-play key, the same store reads (first play,
    /// the playback's rank among the viewer's live playbacks), the same stream limit recorded
    /// for later session starts, the same `MediaRuleEvaluator`, and a playback refused over the
    /// stream limit has its session ended. Returns the first-play key to record once the keys
    /// have left.
    ///
    /// `policy` stands for the verified policy of the request's key access objects: tdf-hls has
    /// no manifest-wide key, iv or components, so only the policy members are filled in.
    func authorizeRewrap(_ policy: AdmittedManifest, viewer: MediaViewer, session: MediaSessionRecord, idHash: String,
                         request: ServerRequest, now: Date) throws(KeyRequestFailure) -> String {
        let playKey = firstPlayKey(manifest: policy, viewer: viewer)
        let firstPlay: Date?
        let rank: Int?
        do {
            firstPlay = try store.firstPlay(viewer: viewer.storeKey, asset: playKey)
            rank = try store.playbackRank(viewer: viewer.storeKey, asset: policy.policyUUID, playback: session.playback, now: now)
            if try store.assetStreamLimit(asset: policy.policyUUID) != policy.rules?.maxConcurrentStreams {
                try store.setAssetStreamLimit(asset: policy.policyUUID, limit: policy.rules?.maxConcurrentStreams, now: now)
            }
        } catch {
            throw .unavailable("state store unavailable", "store_failure")
        }
        var reportedVM: Bool?
        if let stored = session.device, let value = try? JSONParser.parse(Data(stored.utf8)) {
            reportedVM = DeviceReport(json: value)?.virtualMachine
        }
        let input = MediaPolicyInput(
            policyUUID: policy.policyUUID, dataAttributes: policy.dataAttributes, dissem: policy.dissem, rules: policy.rules,
            viewer: viewer, region: configuration.regionSource.region(for: request),
            device: .software(reportedVirtualMachine: reportedVM), firstPlay: firstPlay, playbackRank: rank, now: now)
        guard let denial = MediaRuleEvaluator.evaluate(input) else { return playKey }
        if denial == .concurrentStreams,
           (try? store.endSession(idHash: idHash, viewer: viewer.storeKey, now: now)) == true {
            var ended = MediaAuditEvent.denied("session_end", viewer: viewer, reason: "ended_over_stream_limit", time: now)
            ended.decision = .allow
            ended.asset = policy.policyUUID
            ended.component = session.component
            audit?.record(ended)
        }
        throw .denied(denial)
    }
}
