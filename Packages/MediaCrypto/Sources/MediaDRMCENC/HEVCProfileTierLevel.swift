extension HEVC {
    /// The general part of `profile_tier_level()` (§7.3.3): what the `CODECS` string and the
    /// `hvcC` record repeat. Sub-layer fields are read past and not kept.
    public struct ProfileTierLevel: Sendable, Equatable {
        public var profileSpace: UInt8
        public var tierFlag: Bool
        public var profileIDC: UInt8
        /// `general_profile_compatibility_flag[j]`, flag 0 in the most significant bit.
        public var compatibilityFlags: UInt32
        /// The 48 bits from `general_progressive_source_flag` on, as six bytes.
        public var constraintIndicatorFlags: [UInt8]
        public var levelIDC: UInt8

        /// Reads `profile_tier_level(1, maxSubLayersMinus1)`.
        init(_ reader: inout H264.BitReader, maxSubLayersMinus1: Int) throws(CENCError) {
            profileSpace = UInt8(try reader.readBits(2))
            tierFlag = try reader.readFlag()
            profileIDC = UInt8(try reader.readBits(5))
            compatibilityFlags = try reader.readBits(32)
            var constraints: [UInt8] = []
            for _ in 0 ..< 6 { constraints.append(UInt8(try reader.readBits(8))) }
            constraintIndicatorFlags = constraints
            levelIDC = UInt8(try reader.readBits(8))
            var profilePresent: [Bool] = []
            var levelPresent: [Bool] = []
            for _ in 0 ..< maxSubLayersMinus1 {
                profilePresent.append(try reader.readFlag())
                levelPresent.append(try reader.readFlag())
            }
            if maxSubLayersMinus1 > 0 {
                try reader.skipBits(2 * (8 - maxSubLayersMinus1))  // reserved_zero_2bits
            }
            for i in 0 ..< maxSubLayersMinus1 {
                if profilePresent[i] { try reader.skipBits(88) }  // sub_layer profile space ... constraint flags
                if levelPresent[i] { try reader.skipBits(8) }  // sub_layer_level_idc
            }
        }

        public init(profileSpace: UInt8, tierFlag: Bool, profileIDC: UInt8, compatibilityFlags: UInt32,
                    constraintIndicatorFlags: [UInt8], levelIDC: UInt8) {
            self.profileSpace = profileSpace
            self.tierFlag = tierFlag
            self.profileIDC = profileIDC
            self.compatibilityFlags = compatibilityFlags
            self.constraintIndicatorFlags = constraintIndicatorFlags
            self.levelIDC = levelIDC
        }
    }
}
