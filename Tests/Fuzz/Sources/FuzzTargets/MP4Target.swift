import MediaDRMMP4

/// The ISO BMFF box tree: every box the registry knows, read and written by its one
/// description; whatever parses must serialize to bytes that parse to the same tree. `mdat`
/// serializes its header only (its payload is never held), so the round trip leaves it out.
enum MP4Target {
    static let target = FuzzTarget("mp4", "BoxParser.parse and serialize round trip; BoxIterator") { input throws(FuzzViolation) in
        var iterator = BoxIterator(source: MP4MemorySource(input))
        _ = try? iterator.all()
        guard let parsed = try? BoxParser.parse(input) else { return .refused }
        let boxes = parsed.filter { !($0 is MediaDataBox) }
        guard let written = try? BoxParser.serialize(boxes) else { return .refused }
        let reread: [any MP4Box]
        do {
            reread = try BoxParser.parse(written)
        } catch {
            throw FuzzViolation("mp4", "a parsed box tree serializes to bytes that do not parse: \(error)")
        }
        guard BoxList(reread) == BoxList(boxes) else {
            throw FuzzViolation("mp4", "the box tree changed in a serialize round trip")
        }
        return .accepted
    }
}
