/// The struct that reads each known box type; every other type is kept as an `UnknownBox`.
func boxMetatype(for type: FourCC) -> any MP4Box.Type {
    switch type {
    case "ftyp", "styp": FileTypeBox.self
    case "moov": MovieBox.self
    case "mvhd": MovieHeaderBox.self
    case "trak": TrackBox.self
    case "tkhd": TrackHeaderBox.self
    case "edts": EditBox.self
    case "elst": EditListBox.self
    case "mdia": MediaBox.self
    case "mdhd": MediaHeaderBox.self
    case "hdlr": HandlerBox.self
    case "minf": MediaInformationBox.self
    case "vmhd": VideoMediaHeaderBox.self
    case "smhd": SoundMediaHeaderBox.self
    case "dinf": DataInformationBox.self
    case "dref": DataReferenceBox.self
    case "url ": DataEntryUrlBox.self
    case "stbl": SampleTableBox.self
    case "stsd": SampleDescriptionBox.self
    case "stts": TimeToSampleBox.self
    case "ctts": CompositionOffsetBox.self
    case "stss": SyncSampleBox.self
    case "stsc": SampleToChunkBox.self
    case "stsz": SampleSizeBox.self
    case "stco": ChunkOffsetBox.self
    case "co64": ChunkLargeOffsetBox.self
    case "avc1", "avc3", "hvc1", "hev1", "encv": VisualSampleEntry.self
    case "avcC": AVCConfigurationBox.self
    case "hvcC": HEVCConfigurationBox.self
    case "mp4a", "enca", "ac-3", "ec-3": AudioSampleEntry.self
    case "esds": ESDBox.self
    case "sinf": ProtectionSchemeInfoBox.self
    case "frma": OriginalFormatBox.self
    case "schm": SchemeTypeBox.self
    case "schi": SchemeInformationBox.self
    case "tenc": TrackEncryptionBox.self
    case "pssh": ProtectionSystemSpecificHeaderBox.self
    case "mvex": MovieExtendsBox.self
    case "trex": TrackExtendsBox.self
    case "moof": MovieFragmentBox.self
    case "mfhd": MovieFragmentHeaderBox.self
    case "traf": TrackFragmentBox.self
    case "tfhd": TrackFragmentHeaderBox.self
    case "tfdt": TrackFragmentBaseMediaDecodeTimeBox.self
    case "trun": TrackRunBox.self
    case "senc": SampleEncryptionBox.self
    case "saiz": SampleAuxiliaryInformationSizesBox.self
    case "saio": SampleAuxiliaryInformationOffsetsBox.self
    case "mdat": MediaDataBox.self
    default: UnknownBox.self
    }
}
