import Foundation

// The player's verbs arrive with the Client issue; until then the tool says so plainly.
FileHandle.standardError.write(Data("player: not implemented yet (see the Client issue)\n".utf8))
exit(1)
