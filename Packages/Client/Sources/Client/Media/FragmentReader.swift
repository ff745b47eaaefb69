import MediaDRMMP4

/// Splits a media segment held in memory into its fragments (`moof` each followed by the `mdat`
/// that holds all its samples) and resolves every sample's offset, size, duration, flags and
/// composition offset against the init segment's `trex` defaults. `styp`, `sidx`, `ssix`,
/// `prft`, `emsg`, `free` and `skip` are dropped.
struct FragmentReader {
    /// A segment larger than this is refused before parsing.
    static let maximumSegmentSize = 1 << 30
    /// Samples of zero bytes take no room in the `mdat`, so their count is bounded here (about
    /// 2.4 hours of 30 fps video, or 90 minutes of 48 kHz AAC, in one fragment).
    static let maximumSamplesPerFragment = 1 << 18
    static let ignoredTypes: Set<FourCC> = ["styp", "sidx", "ssix", "prft", "emsg", "free", "skip"]

    let initSegment: ClearInitSegment
    let options: DecodingOptions
    /// The decode time that follows each track's last fragment, for fragments without `tfdt`.
    var nextDecodeTimes: [UInt32: UInt64] = [:]

    init(initSegment: ClearInitSegment) {
        self.initSegment = initSegment
        var sizes: [UInt32: Int] = [:]
        for (id, protection) in initSegment.protections { sizes[id] = protection.perSampleIVSize }
        options = DecodingOptions(perSampleIVSizes: sizes)
    }

    mutating func fragments(in bytes: [UInt8]) throws(MediaError) -> [MediaFragment] {
        var result: [MediaFragment] = []
        for (fragment, payload) in try fragmentsInPlace(in: bytes) {
            var copy = fragment
            copy.mediaData = Array(bytes[payload])
            result.append(copy)
        }
        return result
    }

    /// The fragments with empty `mediaData`, each with where its `mdat` payload lies in `bytes`
    /// (every sample offset is relative to that payload), so the payload can be decrypted and
    /// written where it is.
    mutating func fragmentsInPlace(in bytes: [UInt8]) throws(MediaError) -> [(fragment: MediaFragment, payload: Range<Int>)] {
        guard bytes.count <= Self.maximumSegmentSize else {
            throw MediaError(.limitExceeded, "segment larger than \(Self.maximumSegmentSize) bytes")
        }
        let source = MP4MemorySource(bytes)
        var iterator = BoxIterator(source: source)
        var headers: [BoxHeader] = []
        do throws(MP4Error) {
            headers = try iterator.all()
        } catch {
            throw MediaError.mp4(error, "segment")
        }
        var result: [(fragment: MediaFragment, payload: Range<Int>)] = []
        var index = 0
        while index < headers.count {
            let header = headers[index]
            index += 1
            if Self.ignoredTypes.contains(header.type) || header.type == "uuid" { continue }
            guard header.type == "moof" else {
                throw MediaError(.malformed, "segment holds a top-level '\(header.type)' where a 'moof' was expected")
            }
            guard index < headers.count, headers[index].type == "mdat" else {
                throw MediaError(.missingBox, "a 'moof' is not followed by its 'mdat'")
            }
            let mdat = headers[index]
            index += 1
            let moof: MovieFragmentBox
            do throws(MP4Error) {
                moof = try iterator.readBox(header, as: MovieFragmentBox.self, options: options)
            } catch {
                throw MediaError.mp4(error, "'moof'")
            }
            result.append(try resolve(moof, moofOffset: header.offset, mdat: mdat, bytes: bytes))
        }
        guard !result.isEmpty else { throw MediaError(.missingBox, "segment holds no 'moof'") }
        return result
    }

    private mutating func resolve(_ moof: MovieFragmentBox, moofOffset: UInt64, mdat: BoxHeader,
                                  bytes: [UInt8]) throws(MediaError) -> (fragment: MediaFragment, payload: Range<Int>) {
        // Offsets are checked as Int64 against the mdat payload, so no sum can overflow: every
        // term is at most 2^32 and there are at most 2^20 samples per run.
        let payloadStart = Int64(mdat.payloadOffset)
        let payloadEnd = Int64(mdat.endOffset)
        var trafs: [TrackFragmentSamples] = []
        var previousTrafEnd: Int64?
        var sampleCount = 0
        for traf in moof.trackFragments {
            guard let tfhd = traf.trackFragmentHeader else { throw MediaError(.missingBox, "'traf' without 'tfhd'") }
            let trackID = tfhd.trackID
            guard initSegment.track(trackID) != nil else {
                throw MediaError(.malformed, "'tfhd' names track \(trackID), which the init segment does not have")
            }
            let trex = initSegment.trackExtends(of: trackID)
            var base: Int64
            if let explicit = tfhd.baseDataOffset {
                guard explicit <= UInt64(Int64.max / 2) else { throw MediaError(.dataOutOfBounds, "'tfhd'.base_data_offset too large") }
                base = Int64(explicit)
            } else if tfhd.defaultBaseIsMoof {
                base = Int64(moofOffset)
            } else {
                base = previousTrafEnd ?? Int64(moofOffset)
            }
            var samples: [FragmentSample] = []
            var runOffsets: [Int] = []
            var position = base
            for (runIndex, run) in traf.trackRuns.enumerated() {
                sampleCount += run.samples.count
                guard sampleCount <= Self.maximumSamplesPerFragment else {
                    throw MediaError(.limitExceeded, "fragment holds more than \(Self.maximumSamplesPerFragment) samples")
                }
                if let offset = run.dataOffset { position = base + Int64(offset) }
                guard position >= payloadStart, position <= payloadEnd else {
                    throw MediaError(.dataOutOfBounds, "track \(trackID) 'trun' \(runIndex) starts outside the 'mdat'")
                }
                runOffsets.append(Int(position - payloadStart))
                for (sampleIndex, entry) in run.samples.enumerated() {
                    let size = Int64(entry.sampleSize ?? tfhd.defaultSampleSize ?? trex.defaultSampleSize)
                    let flags = (sampleIndex == 0 ? run.firstSampleFlags : nil) ?? entry.sampleFlags
                        ?? tfhd.defaultSampleFlags ?? trex.defaultSampleFlags
                    guard position + size <= payloadEnd else {
                        throw MediaError(.dataOutOfBounds, "track \(trackID) sample \(samples.count) ends outside the 'mdat'")
                    }
                    samples.append(FragmentSample(offset: Int(position - payloadStart), size: Int(size),
                                                  duration: entry.sampleDuration ?? tfhd.defaultSampleDuration ?? trex.defaultSampleDuration,
                                                  flags: flags,
                                                  compositionTimeOffset: entry.sampleCompositionTimeOffset ?? 0))
                    position += size
                }
            }
            previousTrafEnd = position
            let decodeTime = traf.decodeTime?.baseMediaDecodeTime ?? nextDecodeTimes[trackID] ?? 0
            var resolved = TrackFragmentSamples(trackID: trackID, baseMediaDecodeTime: decodeTime,
                                                samples: samples, runOffsets: runOffsets)
            let (next, overflow) = decodeTime.addingReportingOverflow(resolved.duration)
            guard !overflow else { throw MediaError(.malformed, "track \(trackID) decode time overflows") }
            nextDecodeTimes[trackID] = next
            resolved.baseMediaDecodeTime = decodeTime
            trafs.append(resolved)
        }
        let start = Int(payloadStart), end = Int(payloadEnd)
        guard start >= 0, start <= end, end <= bytes.count else {
            throw MediaError(.dataOutOfBounds, "'mdat' extends past the segment")
        }
        return (MediaFragment(movieFragment: moof, mediaData: [], trackFragments: trafs), start ..< end)
    }
}
