import MediaDRMMP4

/// Where every sample of a progressive track lies and when it is decoded and presented, expanded
/// from `stts`, `ctts`, `stss`, `stsc`, `stsz` and `stco`/`co64`. About 25 bytes per sample, so a
/// long film's tables stay small while its media is never loaded.
public struct SampleTable: Sendable, Equatable {
    /// File offset of each sample.
    public internal(set) var offsets: [UInt64] = []
    public internal(set) var sizes: [UInt32] = []
    /// Decode time of each sample in the media timescale, from 0.
    public internal(set) var decodeTimes: [Int64] = []
    public internal(set) var durations: [UInt32] = []
    /// Composition time minus decode time (signed).
    public internal(set) var compositionOffsets: [Int32] = []
    /// Random-access (sync) samples; every sample when the track has no `stss`.
    public internal(set) var isSync: [Bool] = []

    public var count: Int { sizes.count }

    /// Decode time plus composition offset.
    public func compositionTime(_ index: Int) -> Int64 { decodeTimes[index] + Int64(compositionOffsets[index]) }

    /// The end of the decode timeline.
    public var decodeEnd: Int64 {
        guard let last = decodeTimes.last, let duration = durations.last else { return 0 }
        return last + Int64(duration)
    }

    /// Expands the sample tables of `stbl`, checking every count against the others and every
    /// sample against the file size.
    init(sampleTable stbl: SampleTableBox, fileSize: UInt64, trackName: String) throws(PackagerError) {
        func bad(_ what: String) -> PackagerError { PackagerError(.malformedInput, "\(trackName): \(what)") }
        guard let stsz = stbl.sampleSize else {
            if stbl.children.boxes.contains(where: { $0.boxType == "stz2" }) {
                throw PackagerError(.unsupportedInput, "\(trackName): compact sample sizes ('stz2') are not supported")
            }
            throw bad("the sample table has no 'stsz'")
        }
        guard let stts = stbl.timeToSample else { throw bad("the sample table has no 'stts'") }
        guard let stsc = stbl.sampleToChunk else { throw bad("the sample table has no 'stsc'") }
        let chunkOffsets = stbl.chunkOffsets
        let sampleCount = Int(stsz.sampleCount)
        if stsz.sampleSize == 0, stsz.entrySizes.count != sampleCount { throw bad("'stsz' lists fewer sizes than samples") }
        // A constant sample size with a huge count could ask for a huge table: the count must be
        // plausible for the file (every sample at least one byte).
        guard UInt64(sampleCount) <= fileSize else { throw bad("'stsz' counts more samples than the file has bytes") }

        // stsz
        sizes.reserveCapacity(sampleCount)
        if stsz.sampleSize != 0 {
            sizes = Array(repeating: stsz.sampleSize, count: sampleCount)
        } else {
            sizes = stsz.entrySizes
        }

        // stts
        decodeTimes.reserveCapacity(sampleCount)
        durations.reserveCapacity(sampleCount)
        var time: Int64 = 0
        for entry in stts.entries {
            guard durations.count + Int(entry.sampleCount) <= sampleCount else { throw bad("'stts' covers more samples than 'stsz'") }
            for _ in 0 ..< entry.sampleCount {
                decodeTimes.append(time)
                durations.append(entry.sampleDelta)
                time += Int64(entry.sampleDelta)
            }
        }
        guard durations.count == sampleCount else { throw bad("'stts' covers fewer samples than 'stsz'") }

        // ctts: version 0 offsets above Int32.max are negative offsets some writers store unsigned.
        if let ctts = stbl.compositionOffset {
            compositionOffsets.reserveCapacity(sampleCount)
            for entry in ctts.entries {
                guard compositionOffsets.count + Int(entry.sampleCount) <= sampleCount else {
                    throw bad("'ctts' covers more samples than 'stsz'")
                }
                let offset: Int32
                if let exact = Int32(exactly: entry.sampleOffset) {
                    offset = exact
                } else if entry.sampleOffset >= 0, entry.sampleOffset <= Int64(UInt32.max) {
                    offset = Int32(bitPattern: UInt32(entry.sampleOffset))
                } else {
                    throw bad("'ctts' offset out of range")
                }
                compositionOffsets.append(contentsOf: repeatElement(offset, count: Int(entry.sampleCount)))
            }
            guard compositionOffsets.count == sampleCount else { throw bad("'ctts' covers fewer samples than 'stsz'") }
        } else {
            compositionOffsets = Array(repeating: 0, count: sampleCount)
        }

        // stss
        if let stss = stbl.syncSample {
            isSync = Array(repeating: false, count: sampleCount)
            for number in stss.sampleNumbers {
                guard number >= 1, Int(number) <= sampleCount else { throw bad("'stss' names a sample that does not exist") }
                isSync[Int(number) - 1] = true
            }
        } else {
            isSync = Array(repeating: true, count: sampleCount)
        }

        // stsc + stco/co64
        offsets.reserveCapacity(sampleCount)
        let entries = stsc.entries
        guard sampleCount == 0 || !entries.isEmpty else { throw bad("'stsc' is empty") }
        guard entries.first.map({ $0.firstChunk == 1 }) ?? true else { throw bad("'stsc' does not start at chunk 1") }
        var sample = 0
        for (i, entry) in entries.enumerated() {
            guard entry.sampleDescriptionIndex == 1 else {
                throw PackagerError(.unsupportedInput, "\(trackName): more than one sample description is not supported")
            }
            let first = Int(entry.firstChunk)
            let next = i + 1 < entries.count ? Int(entries[i + 1].firstChunk) : chunkOffsets.count + 1
            guard next > first, next - 1 <= chunkOffsets.count else { throw bad("'stsc' chunk numbers are not increasing or exceed 'stco'") }
            for chunk in first ..< next {
                var offset = chunkOffsets[chunk - 1]
                for _ in 0 ..< entry.samplesPerChunk {
                    guard sample < sampleCount else { throw bad("'stsc' covers more samples than 'stsz'") }
                    let size = UInt64(sizes[sample])
                    guard offset <= fileSize, size <= fileSize - offset else {
                        throw PackagerError(.truncatedInput,
                                            "\(trackName): sample \(sample + 1) lies past the end of the file (is the input truncated?)")
                    }
                    offsets.append(offset)
                    offset += size
                    sample += 1
                }
            }
        }
        guard sample == sampleCount else { throw bad("'stsc' covers fewer samples than 'stsz'") }
    }

    /// A table made directly (tests, re-encoded audio).
    public init(offsets: [UInt64], sizes: [UInt32], durations: [UInt32], compositionOffsets: [Int32]? = nil, isSync: [Bool]? = nil) {
        self.offsets = offsets
        self.sizes = sizes
        self.durations = durations
        var t: Int64 = 0
        decodeTimes = durations.map { d in defer { t += Int64(d) }; return t }
        self.compositionOffsets = compositionOffsets ?? Array(repeating: 0, count: sizes.count)
        self.isSync = isSync ?? Array(repeating: true, count: sizes.count)
    }
}
