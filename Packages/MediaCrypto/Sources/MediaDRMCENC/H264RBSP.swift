extension H264 {
    /// The raw byte sequence payload of a NAL unit: the bytes after the NAL unit header with
    /// every `emulation_prevention_three_byte` removed (§7.4.1), and where each removed byte sat,
    /// so that a position in the RBSP maps back to the escaped bytes that travel in the sample.
    public struct RBSP: Sendable, Equatable {
        /// The unescaped payload.
        public let bytes: [UInt8]
        /// Offsets, relative to the first escaped payload byte, of the removed 0x03 bytes, ascending.
        public let emulationPreventionOffsets: [Int]

        /// Unescapes `escaped` (a NAL unit payload without its header byte). With `limit`, stops
        /// once that many RBSP bytes are produced (a slice header needs only the start).
        public init(escaped: ArraySlice<UInt8>, limit: Int? = nil) {
            let cap = limit ?? Int.max
            var out: [UInt8] = []
            out.reserveCapacity(min(escaped.count, cap))
            var removed: [Int] = []
            var zeros = 0
            var offset = 0
            for byte in escaped {
                if out.count >= cap { break }
                if zeros >= 2, byte == 0x03 {
                    removed.append(offset)
                    zeros = 0
                } else {
                    out.append(byte)
                    zeros = byte == 0 ? zeros + 1 : 0
                }
                offset += 1
            }
            bytes = out
            emulationPreventionOffsets = removed
        }

        /// The escaped offset (relative to the first payload byte) of RBSP byte `rbspOffset`.
        public func escapedOffset(ofRBSPOffset rbspOffset: Int) -> Int {
            var escaped = rbspOffset
            for removed in emulationPreventionOffsets {
                if removed <= escaped { escaped += 1 } else { break }
            }
            return escaped
        }

        /// How many escaped payload bytes carry the first `bitCount` RBSP bits: the bytes up to
        /// and including the one that holds the last of those bits (a partial byte counts whole).
        public func escapedByteCount(coveringBits bitCount: Int) -> Int {
            guard bitCount > 0 else { return 0 }
            let lastByte = (bitCount - 1) / 8
            return escapedOffset(ofRBSPOffset: lastByte) + 1
        }
    }
}
