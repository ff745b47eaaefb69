/// The one spelling of a policy uuid that fps-v2 accepts (§6.1): 36 characters, lowercase
/// hexadecimal in groups of 8-4-4-4-12 separated by `-`. The packager writes it, the readers and
/// the KAS refuse any other spelling, so one uuid names one asset everywhere.
public enum CanonicalUUID {
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
