import Foundation

// The packager's verbs arrive with the packager issue; until then the tool says so plainly.
FileHandle.standardError.write(Data("packager: not implemented yet (see the Packager issue)\n".utf8))
exit(1)
