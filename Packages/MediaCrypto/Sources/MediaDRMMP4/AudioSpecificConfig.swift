/// The leading fields of an MPEG-4 AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1): the bytes of
/// an AAC track's DecoderSpecificInfo in `esds` (`DecoderSpecificInfo.audioSpecificConfig`).
/// Read once here for the packager (AAC-LC and the HLS `CHANNELS` it writes) and for fps-v2
/// admission (§8.2 #8 and the master's `CHANNELS`).
public struct AudioSpecificConfig: Sendable, Equatable {
    /// 2 is AAC-LC; 32 and above come from the escape value 31.
    public let audioObjectType: Int
    public let samplingFrequencyIndex: Int
    /// Hz: the table's value, or the explicit 24-bit one of index 15; nil for the reserved
    /// indexes 13 and 14.
    public let samplingFrequency: Int?
    /// 1–6 are that many channels, 7 is 7.1 (8 channels); 0 and 8–15 need a program config.
    public let channelConfiguration: Int

    static let frequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Throws `.truncated` when the bytes end before the channel configuration.
    public init(bytes: [UInt8]) throws(MP4Error) {
        var bits = BitReader(bytes)
        do {
            var type = Int(try bits.readBits(5))
            if type == 31 { type = 32 + Int(try bits.readBits(6)) }
            audioObjectType = type
            samplingFrequencyIndex = Int(try bits.readBits(4))
            switch samplingFrequencyIndex {
            case 0xF: samplingFrequency = Int(try bits.readBits(24))
            case Self.frequencies.indices: samplingFrequency = Self.frequencies[samplingFrequencyIndex]
            default: samplingFrequency = nil
            }
            channelConfiguration = Int(try bits.readBits(4))
        } catch {
            throw MP4Error(.truncated, "the AudioSpecificConfig is truncated", field: "AudioSpecificConfig")
        }
    }

    /// The channel count HLS `CHANNELS` names, nil for configurations fps-v2 refuses (0, 8–15).
    public var channelCount: Int? { Self.channelCount(configuration: channelConfiguration) }

    /// The channel count of a `channelConfiguration`: 1–6 as they are, 7 (7.1) is 8, others nil.
    public static func channelCount(configuration: Int) -> Int? {
        switch configuration {
        case 1 ... 6: configuration
        case 7: 8
        default: nil
        }
    }
}
