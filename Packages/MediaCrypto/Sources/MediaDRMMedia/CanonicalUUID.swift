/// The one spelling of a policy uuid that fps-v2 accepts (§6.1): 36 characters, lowercase
/// hexadecimal in groups of 8-4-4-4-12 separated by `-`. The packager writes it, the readers and
/// the KAS refuse any other spelling, so one uuid names one asset everywhere.
public enum CanonicalUUID {
    /// The canonical text of 16 bytes (a policy uuid, or a key ID where DASH and EME write one as
    /// a uuid); nil for any other length.
    public static func text(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        let digits = Array("0123456789abcdef")
        var out = ""
        for (i, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(i) { out += "-" }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    public static func isCanonical(_ text: some StringProtocol) -> Bool {
        var count = 0
        for byte in text.utf8 {
            switch count {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
            count += 1
            guard count <= 36 else { return false }
        }
        return count == 36
    }
}
