import Foundation
import MediaDRMToolSupport

// `kas keys <action>` is a tool of its own so each action has its own options and --help;
// the top-level tool lists `keys` for discovery.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "keys" {
    let status = KeysCommand.tool.run(Array(arguments.dropFirst()), console: .standard(toolName: "kas keys"))
    exit(status.rawValue)
}
if arguments.first == "assets" {
    let status = AssetsCommand.tool.run(Array(arguments.dropFirst()), console: .standard(toolName: "kas assets"))
    exit(status.rawValue)
}
if arguments.first == "store" {
    let status = StoreCommand.tool.run(Array(arguments.dropFirst()), console: .standard(toolName: "kas store"))
    exit(status.rawValue)
}
KASCommand.tool.main()
