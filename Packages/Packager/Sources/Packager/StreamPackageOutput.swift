import Foundation

/// The directory a stream package (tdf-hls, cmaf) is written into, and what went into it: each
/// file added, each rendition's figures, the warnings; at the end the summary. Both profiles
/// build their package through one of these, so the bookkeeping is written once.
final class StreamPackageOutput {
    private let sink: DirectoryPackageSink
    private let output: String
    private(set) var entries: [(name: String, size: Int)] = []
    var components: [PackageSummary.Component] = []
    var warnings: [String]

    /// Starts the package at `output` (an absent or empty directory) with the warnings the inputs gave.
    init(output: String, renditions: LadderRenditions, sources: TDFHLSSources, segmentDuration: Double) throws(PackagerError) {
        sink = try DirectoryPackageSink(path: output)
        self.output = output
        warnings = renditions.warnings + sources.reencodeReasons.map { "re-encoded to AAC-LC: \($0)" }
        if sources.variants.count > 1, segmentDuration < 2 {
            warnings.append("segments shorter than 2 s make variant switches frequent; 6 s is usual (Apple HLS authoring)")
        }
    }

    func add(_ name: String, _ bytes: [UInt8]) throws(PackagerError) {
        try sink.add(name: name, bytes: bytes)
        entries.append((name, bytes.count))
    }

    /// Moves the finished package into place.
    func commit() throws(PackagerError) {
        _ = try sink.finish()
        try sink.commit()
    }

    /// Removes everything written; nothing is left at the output path.
    func discard() { sink.discard() }

    func summary(profile: String, policyUUID: String, sources: TDFHLSSources, renditions: LadderRenditions,
                 packagingStarted: Date) -> PackageSummary {
        let plan = sources.variants[0].plan
        var summary = PackageSummary(output: output, profile: profile, isDirectory: true, policyUUID: policyUUID, components: components,
                                     segmentDurations: plan.durations, duration: plan.durations.reduce(0, +),
                                     bytes: UInt64(entries.reduce(0) { $0 + $1.size }), entries: entries.map(\.name),
                                     audioReencodeReason: sources.reencodeReasons.isEmpty ? nil : sources.reencodeReasons.joined(separator: "; "),
                                     admission: nil, warnings: warnings)
        summary.ladderEncodeSeconds = renditions.encodeSeconds
        summary.packagingSeconds = Date().timeIntervalSince(packagingStarted)
        return summary
    }
}
