import MediaDRMMP4

/// One track of a progressive source: its description, sample tables and edit timing.
public struct SourceTrack: Sendable {
    public enum Kind: Sendable, Equatable { case video, audio, other }

    public let trackID: UInt32
    public let kind: Kind
    /// The sample entry type (`avc1`, `mp4a`, `hev1`, ...).
    public let format: FourCC
    public let timescale: UInt32
    /// ISO 639-2/T from `mdhd` ("und" when unknown).
    public let language: String
    public let samples: SampleTable
    public let edit: EditTiming
    /// Why this sound track's edit list cannot be read as one media edit (several media edits,
    /// a rate other than 1). Such a track is re-encoded by ffmpeg, which applies the edits
    /// itself; a video track with such an edit list is refused.
    public let unsupportedEdit: String?
    /// The visual sample entry of a video track.
    public let videoEntry: VisualSampleEntry?
    /// The audio sample entry of an audio track.
    public let audioEntry: AudioSampleEntry?

    public var name: String {
        switch kind {
        case .video: "video track \(trackID)"
        case .audio: "audio track \(trackID)"
        case .other: "track \(trackID)"
        }
    }

    /// `avcC` of an H.264 track.
    public var avcConfiguration: AVCConfigurationBox? { videoEntry?.avcConfiguration }

    /// `hvcC` of an HEVC track.
    public var hevcConfiguration: HEVCConfigurationBox? { videoEntry?.hevcConfiguration }

    /// An HEVC video track: `hvc1` (parameter sets in `hvcC`) or `hev1` (also in band).
    public var isHEVC: Bool { kind == .video && (format == "hvc1" || format == "hev1") }

    /// The AudioSpecificConfig of an MPEG-4 audio track (read by MediaDRMMP4, as fps-v2
    /// admission reads it); one with a reserved sampling frequency index is malformed input.
    public func audioSpecificConfig() throws(PackagerError) -> AudioSpecificConfig? {
        guard let esds = audioEntry?.elementaryStreamDescriptor,
              esds.descriptor.decoderConfig.objectTypeIndication == 0x40,
              let info = esds.descriptor.decoderConfig.decoderSpecificInfo else { return nil }
        let config: AudioSpecificConfig
        do {
            config = try AudioSpecificConfig(bytes: info.audioSpecificConfig)
        } catch {
            throw PackagerError(.malformedInput, error.reason)
        }
        guard config.samplingFrequency != nil else {
            throw PackagerError(.malformedInput, "the AudioSpecificConfig has a reserved sampling frequency index")
        }
        return config
    }

    /// Presentation time of sample `i` (media timescale), through the edit list.
    public func presentationTime(_ i: Int) -> Int64 {
        edit.presentationTime(ofCompositionTime: samples.compositionTime(i))
    }

    /// The end of the presentation: the latest presented sample end, cut by the edit's duration.
    public var presentationEnd: Int64 {
        var end: Int64 = 0
        for i in 0 ..< samples.count {
            end = max(end, presentationTime(i) + Int64(samples.durations[i]))
        }
        if let limit = edit.mediaDuration { end = min(end, edit.delay + limit) }
        return end
    }

    /// The earliest presentation time of any sample.
    public var presentationStart: Int64 {
        var start = Int64.max
        for i in 0 ..< samples.count { start = min(start, presentationTime(i)) }
        return start == Int64.max ? 0 : start
    }

    init(track: TrackBox, movieTimescale: UInt32, fileSize: UInt64) throws(PackagerError) {
        guard let tkhd = track.trackHeader else { throw PackagerError(.malformedInput, "a track has no 'tkhd'") }
        trackID = tkhd.trackID
        let provisional = "track \(tkhd.trackID)"
        guard let mdia = track.media, let mdhd = mdia.mediaHeader, let hdlr = mdia.handler,
              let stbl = mdia.mediaInformation?.sampleTable else {
            throw PackagerError(.malformedInput, "\(provisional): 'mdia' lacks 'mdhd', 'hdlr' or 'stbl'")
        }
        timescale = mdhd.timescale
        language = mdhd.language
        let entry = stbl.sampleDescription?.children.boxes.first
        format = entry?.boxType ?? FourCC(rawValue: 0)
        switch hdlr.handlerType {
        case "vide":
            kind = .video
            videoEntry = entry as? VisualSampleEntry
            audioEntry = nil
        case "soun":
            kind = .audio
            videoEntry = nil
            audioEntry = entry as? AudioSampleEntry
        default:
            kind = .other
            videoEntry = nil
            audioEntry = nil
        }
        let name = kind == .video ? "video track \(trackID)" : kind == .audio ? "audio track \(trackID)" : provisional
        guard kind == .other || timescale > 0 else { throw PackagerError(.malformedInput, "\(name): timescale 0") }
        if kind == .other {
            samples = SampleTable(offsets: [], sizes: [], durations: [])
            edit = EditTiming()
            unsupportedEdit = nil
            return
        }
        samples = try SampleTable(sampleTable: stbl, fileSize: fileSize, trackName: name)
        do {
            edit = try EditTiming(editList: track.edit?.editList, movieTimescale: movieTimescale,
                                  mediaTimescale: timescale, trackName: name)
            unsupportedEdit = nil
        } catch {
            guard kind == .audio, error.code == .unsupportedInput else { throw error }
            edit = EditTiming()
            unsupportedEdit = error.reason
        }
    }

    /// A track made directly (tests, re-encoded audio).
    public init(trackID: UInt32, kind: Kind, format: FourCC, timescale: UInt32, language: String = "und",
                samples: SampleTable, edit: EditTiming = EditTiming(),
                videoEntry: VisualSampleEntry? = nil, audioEntry: AudioSampleEntry? = nil, unsupportedEdit: String? = nil) {
        self.trackID = trackID
        self.kind = kind
        self.format = format
        self.timescale = timescale
        self.language = language
        self.samples = samples
        self.edit = edit
        self.unsupportedEdit = unsupportedEdit
        self.videoEntry = videoEntry
        self.audioEntry = audioEntry
    }
}
