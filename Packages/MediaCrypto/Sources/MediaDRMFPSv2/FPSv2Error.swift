// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// Every failure of the FPSv2 module. Compared by `code`; `reason` is a fixed, secret-free
/// sentence naming the rule, member or entry at fault (never a key, wrapped key, binding value or
/// policy uuid). An admission refusal carries the identifier of the check that failed.
public struct FPSv2Error: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A reader admission check failed; `check` names it.
        case refused
        /// `manifest.json` is not valid JSON or breaks the closed manifest schema.
        case malformedManifest
        /// A caller-supplied value cannot be written into a package (writer side).
        case invalidArgument
        /// An entry does not exist in the package.
        case notFound
        /// Reading the package source failed.
        case io
        /// An entry's bytes fail their CRC-32 (§4 #2): the package was damaged after it was written.
        case corrupted
        /// A size or count is above a §12 limit.
        case limitExceeded
    }

    public let code: Code
    public let reason: String
    /// The admission check that failed, for `.refused` (and for manifest errors found while
    /// admitting, the check whose rule was broken).
    public let check: AdmissionCheck?

    public init(_ code: Code, _ reason: String, check: AdmissionCheck? = nil) {
        self.code = code
        self.reason = reason
        self.check = check
    }

    public var description: String {
        if let check { return "fps-v2 error (\(code.rawValue)) at \(check.rawValue): \(reason)" }
        return "fps-v2 error (\(code.rawValue)): \(reason)"
    }

    public static func == (lhs: FPSv2Error, rhs: FPSv2Error) -> Bool { lhs.code == rhs.code }
}

/// What `FPSv2Admission.admit` throws: `code == .refused`, and `check` names the first check
/// that failed.
public typealias AdmissionError = FPSv2Error
