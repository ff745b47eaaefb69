// The boxes that hold only other boxes. Each keeps its children in order, unknown ones included,
// and checks its mandatory children in both directions.

/// `moov` (§8.2.1).
public struct MovieBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["moov"]
    public static let requiredChildren: [[FourCC]] = [["mvhd"]]
    public var children = BoxList()
    public init() {}

    public var movieHeader: MovieHeaderBox? {
        get { children.first(MovieHeaderBox.self) }
        set { children.set(newValue) }
    }
    public var tracks: [TrackBox] { children.all(TrackBox.self) }
    public var movieExtends: MovieExtendsBox? {
        get { children.first(MovieExtendsBox.self) }
        set { children.set(newValue) }
    }
    public var protectionSystemHeaders: [ProtectionSystemSpecificHeaderBox] {
        children.all(ProtectionSystemSpecificHeaderBox.self)
    }

    /// Each protected track's `tenc` per-sample IV size by `track_ID`, for reading its `senc`.
    public var perSampleIVSizes: [UInt32: Int] {
        var sizes: [UInt32: Int] = [:]
        for track in tracks {
            guard let id = track.trackHeader?.trackID,
                  let entries = track.media?.mediaInformation?.sampleTable?.sampleDescription?.children else { continue }
            for entry in entries.boxes {
                let sinf: ProtectionSchemeInfoBox?
                if let visual = entry as? VisualSampleEntry { sinf = visual.children.first(ProtectionSchemeInfoBox.self) }
                else if let audio = entry as? AudioSampleEntry { sinf = audio.children.first(ProtectionSchemeInfoBox.self) }
                else { sinf = nil }
                if let tenc = sinf?.schemeInformation?.trackEncryption {
                    sizes[id] = Int(tenc.defaultPerSampleIVSize)
                }
            }
        }
        return sizes
    }
}

/// `trak` (§8.3.1).
public struct TrackBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["trak"]
    public static let requiredChildren: [[FourCC]] = [["tkhd"], ["mdia"]]
    public var children = BoxList()
    public init() {}

    public var trackHeader: TrackHeaderBox? {
        get { children.first(TrackHeaderBox.self) }
        set { children.set(newValue) }
    }
    public var edit: EditBox? {
        get { children.first(EditBox.self) }
        set { children.set(newValue) }
    }
    public var media: MediaBox? {
        get { children.first(MediaBox.self) }
        set { children.set(newValue) }
    }
}

/// `edts` (§8.6.5).
public struct EditBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["edts"]
    public var children = BoxList()
    public init() {}

    public var editList: EditListBox? {
        get { children.first(EditListBox.self) }
        set { children.set(newValue) }
    }
}

/// `mdia` (§8.4.1).
public struct MediaBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["mdia"]
    public static let requiredChildren: [[FourCC]] = [["mdhd"], ["hdlr"], ["minf"]]
    public var children = BoxList()
    public init() {}

    public var mediaHeader: MediaHeaderBox? {
        get { children.first(MediaHeaderBox.self) }
        set { children.set(newValue) }
    }
    public var handler: HandlerBox? {
        get { children.first(HandlerBox.self) }
        set { children.set(newValue) }
    }
    public var mediaInformation: MediaInformationBox? {
        get { children.first(MediaInformationBox.self) }
        set { children.set(newValue) }
    }
}

/// `minf` (§8.4.4).
public struct MediaInformationBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["minf"]
    public static let requiredChildren: [[FourCC]] = [["stbl"]]
    public var children = BoxList()
    public init() {}

    public var dataInformation: DataInformationBox? {
        get { children.first(DataInformationBox.self) }
        set { children.set(newValue) }
    }
    public var sampleTable: SampleTableBox? {
        get { children.first(SampleTableBox.self) }
        set { children.set(newValue) }
    }
}

/// `dinf` (§8.7.1).
public struct DataInformationBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["dinf"]
    public static let requiredChildren: [[FourCC]] = [["dref"]]
    public var children = BoxList()
    public init() {}

    public var dataReference: DataReferenceBox? {
        get { children.first(DataReferenceBox.self) }
        set { children.set(newValue) }
    }
}

/// `stbl` (§8.5.1).
public struct SampleTableBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["stbl"]
    public static let requiredChildren: [[FourCC]] = [["stsd"], ["stts"], ["stsc"], ["stsz", "stz2"], ["stco", "co64"]]
    public var children = BoxList()
    public init() {}

    public var sampleDescription: SampleDescriptionBox? {
        get { children.first(SampleDescriptionBox.self) }
        set { children.set(newValue) }
    }
    public var timeToSample: TimeToSampleBox? {
        get { children.first(TimeToSampleBox.self) }
        set { children.set(newValue) }
    }
    public var compositionOffset: CompositionOffsetBox? {
        get { children.first(CompositionOffsetBox.self) }
        set { children.set(newValue) }
    }
    public var syncSample: SyncSampleBox? {
        get { children.first(SyncSampleBox.self) }
        set { children.set(newValue) }
    }
    public var sampleToChunk: SampleToChunkBox? {
        get { children.first(SampleToChunkBox.self) }
        set { children.set(newValue) }
    }
    public var sampleSize: SampleSizeBox? {
        get { children.first(SampleSizeBox.self) }
        set { children.set(newValue) }
    }
    public var chunkOffset: ChunkOffsetBox? {
        get { children.first(ChunkOffsetBox.self) }
        set { children.set(newValue) }
    }
    public var chunkLargeOffset: ChunkLargeOffsetBox? {
        get { children.first(ChunkLargeOffsetBox.self) }
        set { children.set(newValue) }
    }
    /// Chunk offsets from `stco` or `co64`, whichever is present.
    public var chunkOffsets: [UInt64] {
        if let stco = chunkOffset { return stco.chunkOffsets.map(UInt64.init) }
        return chunkLargeOffset?.chunkOffsets ?? []
    }
}

/// `mvex` (§8.8.1).
public struct MovieExtendsBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["mvex"]
    public var children = BoxList()
    public init() {}

    public var trackExtends: [TrackExtendsBox] { children.all(TrackExtendsBox.self) }
}

/// `moof` (§8.8.4).
public struct MovieFragmentBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["moof"]
    public static let requiredChildren: [[FourCC]] = [["mfhd"]]
    public var children = BoxList()
    public init() {}

    public var movieFragmentHeader: MovieFragmentHeaderBox? {
        get { children.first(MovieFragmentHeaderBox.self) }
        set { children.set(newValue) }
    }
    public var trackFragments: [TrackFragmentBox] { children.all(TrackFragmentBox.self) }
    public var protectionSystemHeaders: [ProtectionSystemSpecificHeaderBox] {
        children.all(ProtectionSystemSpecificHeaderBox.self)
    }
}

/// `traf` (§8.8.6).
public struct TrackFragmentBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["traf"]
    public static let requiredChildren: [[FourCC]] = [["tfhd"]]
    public var children = BoxList()
    public init() {}

    public var trackFragmentHeader: TrackFragmentHeaderBox? {
        get { children.first(TrackFragmentHeaderBox.self) }
        set { children.set(newValue) }
    }
    public var decodeTime: TrackFragmentBaseMediaDecodeTimeBox? {
        get { children.first(TrackFragmentBaseMediaDecodeTimeBox.self) }
        set { children.set(newValue) }
    }
    public var trackRuns: [TrackRunBox] { children.all(TrackRunBox.self) }
    public var sampleEncryption: SampleEncryptionBox? {
        get { children.first(SampleEncryptionBox.self) }
        set { children.set(newValue) }
    }
    public var auxiliaryInformationSizes: SampleAuxiliaryInformationSizesBox? {
        get { children.first(SampleAuxiliaryInformationSizesBox.self) }
        set { children.set(newValue) }
    }
    public var auxiliaryInformationOffsets: SampleAuxiliaryInformationOffsetsBox? {
        get { children.first(SampleAuxiliaryInformationOffsetsBox.self) }
        set { children.set(newValue) }
    }
}

/// `sinf` (§8.12.1).
public struct ProtectionSchemeInfoBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["sinf"]
    public static let requiredChildren: [[FourCC]] = [["frma"]]
    public var children = BoxList()
    public init() {}

    public var originalFormat: OriginalFormatBox? {
        get { children.first(OriginalFormatBox.self) }
        set { children.set(newValue) }
    }
    public var schemeType: SchemeTypeBox? {
        get { children.first(SchemeTypeBox.self) }
        set { children.set(newValue) }
    }
    public var schemeInformation: SchemeInformationBox? {
        get { children.first(SchemeInformationBox.self) }
        set { children.set(newValue) }
    }
}

/// `schi` (§8.12.6).
public struct SchemeInformationBox: ContainerBox {
    public static let supportedTypes: [FourCC] = ["schi"]
    public var children = BoxList()
    public init() {}

    public var trackEncryption: TrackEncryptionBox? {
        get { children.first(TrackEncryptionBox.self) }
        set { children.set(newValue) }
    }
}
