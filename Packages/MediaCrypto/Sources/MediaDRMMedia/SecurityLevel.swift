/// Device security levels, ordered: a software client (the open path) is below a FairPlay
/// `baseline` device, which is below `main`. Compared by rank, never by name.
public enum SecurityLevel: String, Sendable, Equatable, CaseIterable, Comparable {
    case software, baseline, main

    var rank: Int {
        switch self {
        case .software: 0
        case .baseline: 1
        case .main: 2
        }
    }

    public static func < (lhs: SecurityLevel, rhs: SecurityLevel) -> Bool { lhs.rank < rhs.rank }
}
