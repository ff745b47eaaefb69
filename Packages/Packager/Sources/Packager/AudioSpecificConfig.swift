/// The fields of an MPEG-4 AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1) the packager needs.
public struct AudioSpecificConfig: Sendable, Equatable {
    /// 2 is AAC-LC.
    public var audioObjectType: Int
    public var samplingFrequency: Int
    /// 1–6 are that many channels, 7 is 7.1 (8 channels); 0 and 8–15 need a program config.
    public var channelConfiguration: Int

    static let frequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    public init(bytes: [UInt8]) throws(PackagerError) {
        var bits = BitCursor(bytes)
        func read(_ n: Int) throws(PackagerError) -> Int {
            guard let v = bits.read(n) else {
                throw PackagerError(.malformedInput, "the AudioSpecificConfig is truncated")
            }
            return v
        }
        var type = try read(5)
        if type == 31 { type = 32 + (try read(6)) }
        audioObjectType = type
        let index = try read(4)
        if index == 0xF {
            samplingFrequency = try read(24)
        } else {
            guard index < Self.frequencies.count else {
                throw PackagerError(.malformedInput, "the AudioSpecificConfig has a reserved sampling frequency index")
            }
            samplingFrequency = Self.frequencies[index]
        }
        channelConfiguration = try read(4)
    }

    /// The HLS `CHANNELS` count, nil for configurations fps-v2 refuses (0, 8–15).
    public var channelCount: Int? {
        switch channelConfiguration {
        case 1 ... 6: channelConfiguration
        case 7: 8
        default: nil
        }
    }
}

/// A most-significant-bit-first reader over bytes.
struct BitCursor {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0 ..< count {
            let byte = bytes[position >> 3]
            value = value << 1 | Int((byte >> (7 - UInt8(position & 7))) & 1)
            position += 1
        }
        return value
    }
}
