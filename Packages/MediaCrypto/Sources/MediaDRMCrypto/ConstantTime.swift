/// Comparisons whose time does not depend on where two secrets differ.
public enum ConstantTime {
    /// True when both byte sequences have the same length and contents. The length is not
    /// secret; the contents are compared without an early exit.
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
        return difference == 0
    }
}
