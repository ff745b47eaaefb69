#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A player that went away (closed pipe) must be an error to report, not a silent death.
signal(SIGPIPE, SIG_IGN)
PlayerCommand.tool.main()
