import Foundation
import MediaDRMJSON
import MediaDRMZIP

/// Hostile edits of a published package, written back in the fps-v2 exact ZIP layout.
enum Tampering {
    /// Swaps the package's first two `keyAccess` objects (video <-> audio): each still wraps a
    /// real key to the KAS with a valid policy binding, but for the other component.
    static func swapKeyAccess(_ path: String, into output: String) throws {
        let reader = try ZIPReader(path: path)
        let sink = ZIPMemorySink()
        let writer = try ZIPWriter(sink: sink, layout: .exact)
        for entry in reader.entries {
            var data = try reader.read(entry)
            if entry.name == "manifest.json" { data = try swapped(data) }
            try writer.addEntry(name: entry.name, data: data)
        }
        _ = try writer.finish()
        try sink.data.write(to: URL(fileURLWithPath: output))
    }

    static func swapped(_ manifest: Data) throws -> Data {
        guard case .object(let root) = try JSONParser.parse(manifest),
              case .object(let info)? = root["encryptionInformation"],
              case .array(let access)? = info["keyAccess"], access.count >= 2 else {
            throw TestFailure("the manifest has fewer than two keyAccess objects")
        }
        var swappedAccess = access
        swappedAccess.swapAt(0, 1)
        let newInfo = JSONObject(info.map { ($0.key, $0.key == "keyAccess" ? JSONValue.array(swappedAccess) : $0.value) })
        let newRoot = JSONObject(root.map { ($0.key, $0.key == "encryptionInformation" ? JSONValue.object(newInfo) : $0.value) })
        return JSONWriter.write(.object(newRoot), options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
