extension HEVCConfigurationBox {
    /// The RFC 6381 `CODECS` value of an HEVC track (ISO/IEC 14496-15 Annex E.3), e.g.
    /// `hvc1.1.6.L93.B0`: the sample entry type; `general_profile_space` as nothing, A, B or C
    /// followed by `general_profile_idc` in decimal; the 32 compatibility flags in reverse bit
    /// order as hexadecimal without leading zeros; L (Main tier) or H (High tier) followed by
    /// `general_level_idc` in decimal; then each of the six constraint bytes in hexadecimal,
    /// trailing zero bytes left out.
    public func codecsString(sampleEntry: FourCC) -> String {
        let space = ["", "A", "B", "C"][Int(generalProfileSpace & 0x03)]
        var reversed: UInt32 = 0
        for bit in 0 ..< 32 where generalProfileCompatibilityFlags & (1 << UInt32(bit)) != 0 {
            reversed |= 1 << UInt32(31 - bit)
        }
        var parts = [sampleEntry.description, space + String(generalProfileIDC), String(reversed, radix: 16, uppercase: true),
                     (generalTierFlag ? "H" : "L") + String(generalLevelIDC)]
        let constraints = generalConstraintIndicatorFlags.prefix(6)
        if let last = constraints.lastIndex(where: { $0 != 0 }) {
            parts += constraints[...last].map { String($0, radix: 16, uppercase: true) }
        }
        return parts.joined(separator: ".")
    }
}
