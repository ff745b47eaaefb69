import MediaDRMMP4

/// One `senc` subsample: `bytesOfClearData` clear bytes, then `bytesOfProtectedData` bytes
/// under the track's pattern. The MP4 module's type, so a map goes into `senc` unchanged.
public typealias CENCSubsample = SampleEncryptionBox.Subsample

extension SampleEncryptionBox.Subsample {
    /// Checks that `subsamples` cover exactly `sampleSize` bytes.
    public static func validate(_ subsamples: [CENCSubsample], sampleSize: Int) throws(CENCError) {
        var total = 0
        for subsample in subsamples {
            total += Int(subsample.bytesOfClearData) + Int(subsample.bytesOfProtectedData)
        }
        guard total == sampleSize else {
            throw CENCError(.invalidSubsamples, "the subsamples cover \(total) bytes of a \(sampleSize)-byte sample")
        }
    }
}

/// Builds a subsample map from alternating clear and protected runs: clear runs accumulate into
/// the next subsample; a clear run beyond 65,535 bytes spills into subsamples with no protected
/// bytes; a trailing clear run becomes a final subsample with no protected bytes.
struct SubsampleAccumulator {
    private(set) var subsamples: [CENCSubsample] = []
    private var pendingClear = 0

    mutating func add(clear: Int, protected: Int) throws(CENCError) {
        pendingClear += clear
        guard protected > 0 else { return }
        guard protected <= Int(UInt32.max) else {
            throw CENCError(.invalidSubsamples, "a protected run of \(protected) bytes does not fit BytesOfProtectedData")
        }
        flushClear()
        subsamples.append(CENCSubsample(bytesOfClearData: UInt16(pendingClear), bytesOfProtectedData: UInt32(protected)))
        pendingClear = 0
    }

    /// The map, with any pending clear bytes as final subsamples.
    mutating func finish() -> [CENCSubsample] {
        if pendingClear > 0 {
            flushClear()
            if pendingClear > 0 {
                subsamples.append(CENCSubsample(bytesOfClearData: UInt16(pendingClear), bytesOfProtectedData: 0))
            }
            pendingClear = 0
        }
        return subsamples
    }

    /// Emits 65,535-byte clear-only subsamples until what is left fits one `UInt16`.
    private mutating func flushClear() {
        while pendingClear > Int(UInt16.max) {
            subsamples.append(CENCSubsample(bytesOfClearData: UInt16.max, bytesOfProtectedData: 0))
            pendingClear -= Int(UInt16.max)
        }
    }
}
