import MediaDRMMP4

extension MediaError {
    /// An MP4 module failure as a media error; its reason names the box and field, never bytes.
    static func mp4(_ error: MP4Error, _ context: String) -> MediaError {
        MediaError(error.code == .truncated ? .truncated : .malformed, "\(context): \(error.reason)")
    }
}

/// Sample-group boxes (`sgpd`, `sbgp`) are not modelled by the MP4 module; these read just
/// enough of their payload to tell an encryption group (`seig`) from others (`roll`, ...).
enum SampleGroupBoxes {
    static let seig: FourCC = "seig"

    /// The grouping_type of an `sgpd` or `sbgp` kept as an unknown box, or nil for any other box.
    static func groupingType(of box: any MP4Box) -> FourCC? {
        guard let unknown = box as? UnknownBox, unknown.type == "sgpd" || unknown.type == "sbgp",
              unknown.payload.count >= 8 else { return nil }
        let p = unknown.payload
        return FourCC(rawValue: UInt32(p[4]) << 24 | UInt32(p[5]) << 16 | UInt32(p[6]) << 8 | UInt32(p[7]))
    }

    static func isEncryptionGroup(_ box: any MP4Box) -> Bool {
        groupingType(of: box) == seig
    }
}
