import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMToolSupport

/// `kas origin-config --root DIR --secret-file F --listen HOST:PORT [--access-log FILE]
/// [--live [--segment-duration S]]`: the nginx block for signed media URLs (docs/delivery.md#nginx;
/// live: docs/live.md "The live origin").
enum OriginConfigCommand {
    static var verb: ToolVerb {
        ToolVerb("origin-config", summary: "Print the nginx server block that serves the catalog with signed URLs.",
                 discussion: """
                 Prints a server { } block for Debian's nginx (secure_link, Range, CORS for --cors-origin, \
                 caching headers) serving --root on --listen, logging to --access-log without query strings \
                 (a signed URL is a credential until it expires). The block includes --secret-file, which holds \
                 the two origin secrets; when the file does not exist it is created (0600) with fresh ones. \
                 --rotate puts a fresh secret into the slot not signing and makes it the signing slot: \
                 reload nginx first, then restart 'kas serve'; URLs signed before stay valid until the next \
                 rotation. The secrets are never printed. Give the same file to 'kas serve --origin-secret-file'. \
                 --live writes the block for live tdf-hls directories: playlists cached at most half of \
                 --segment-duration (the packager's, default 6), segments and inits cached a day, \
                 live-state.json not served.
                 """,
                 options: [
                    ToolOption.single("root", valueName: "dir", help: "The directory the catalogued packages are in.", required: true),
                    ToolOption.single("secret-file", valueName: "file", help: "The origin secret file (nginx include).", required: true),
                    ToolOption.single("listen", valueName: "host:port", help: "Where nginx listens.", required: true),
                    ToolOption.repeated("cors-origin", valueName: "origin", help: "A web page origin allowed to read media."),
                    ToolOption.single("access-log", valueName: "file",
                                      help: "The block's access log (default \(OriginConfig.defaultAccessLog))."),
                    ToolOption.flag("rotate", help: "Rotate the origin secret (see above)."),
                    ToolOption.flag("live", help: "Serve live tdf-hls directories (see above)."),
                    ToolOption.single("segment-duration", valueName: "seconds",
                                      help: "With --live: the packager's --segment-duration (default 6)."),
                 ]) { parsed, console in
            let root = try parsed.requiredValue("root")
            let secretFile = try parsed.requiredValue("secret-file")
            let listen = try parsed.requiredValue("listen")
            let accessLog = parsed.value("access-log") ?? OriginConfig.defaultAccessLog
            for (name, value) in [("root", root), ("secret-file", secretFile), ("listen", listen), ("access-log", accessLog)] {
                guard OriginConfig.isQuotable(value), !value.contains(" "), !value.contains(";") else {
                    throw UsageError("invalid value for '--\(name)': spaces, quotes, '\\', '$', ';', braces and control characters cannot go into the nginx block")
                }
            }
            guard root.hasPrefix("/"), secretFile.hasPrefix("/"), accessLog.hasPrefix("/") else {
                throw UsageError("'--root', '--secret-file' and '--access-log' must be absolute paths (nginx resolves relative ones against its prefix)")
            }
            guard ListenAddress(listen) != nil else { throw UsageError("invalid value '\(listen)' for '--listen': expected host:port") }
            let live = parsed.flag("live")
            guard live || parsed.value("segment-duration") == nil else {
                throw UsageError("'--segment-duration' goes with '--live' only: a VOD origin caches every file alike")
            }
            var segmentDuration: Int?
            if live { segmentDuration = try parsed.integer("segment-duration", in: 1...3600) ?? 6 }
            let origins = parsed.values("cors-origin")
            for origin in origins where !OriginConfig.isQuotable(origin) || origin.contains(" ") || origin == "*" {
                throw UsageError("invalid value '\(origin.prefix(64))' for '--cors-origin': expected scheme://host[:port]")
            }
            do throws(DeliverySecretError) {
                if parsed.flag("rotate") {
                    let slot = try OriginSecret.rotate(path: secretFile)
                    console.progress("origin secret rotated: slot \(slot) signs now; reload nginx, then restart 'kas serve'")
                } else if try OriginSecret.createIfAbsent(path: secretFile) {
                    console.progress("wrote fresh origin secrets to '\(secretFile)' (0600)")
                }
            } catch {
                throw ToolFailure(error.reason)
            }
            console.write(Data(OriginConfig(root: root, secretFile: secretFile, listen: listen, corsOrigins: origins,
                                                   accessLog: accessLog, liveSegmentDuration: segmentDuration).serverBlock.utf8))
        }
    }
}
