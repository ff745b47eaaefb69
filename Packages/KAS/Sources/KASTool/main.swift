import Foundation

// The server's verbs arrive with the KAS server issue; until then the tool says so plainly.
FileHandle.standardError.write(Data("kas: not implemented yet (see the KAS server issue)\n".utf8))
exit(1)
