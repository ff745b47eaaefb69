/// Inputs made of parts: `[UInt32 big-endian length][part]...` and a final part that runs to the
/// end. Mutations that break a length make the split fail, which the targets treat as a refusal.
enum FuzzInput {
    /// Splits `input` into exactly `count` parts (the last without a length), or nil.
    static func split(_ input: [UInt8], into count: Int) -> [[UInt8]]? {
        var parts: [[UInt8]] = []
        var offset = 0
        while parts.count < count - 1 {
            guard input.count - offset >= 4 else { return nil }
            let length = input[offset ..< offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard length <= input.count - offset else { return nil }
            parts.append(Array(input[offset ..< offset + length]))
            offset += length
        }
        parts.append(Array(input[offset...]))
        return parts
    }

    /// The inverse of `split`, for writing seeds and regression inputs.
    static func join(_ parts: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if index < parts.count - 1 {
                let length = UInt32(part.count)
                out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            }
            out += part
        }
        return out
    }
}
