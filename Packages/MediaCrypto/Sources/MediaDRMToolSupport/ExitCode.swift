/// The process exit statuses every tool of the project uses. 64 is `EX_USAGE` from BSD
/// `sysexits.h`, so scripts can tell "you called me wrong" from "the work failed".
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 64
}
