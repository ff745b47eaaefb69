import MediaDRMHLS

/// Playlists: the lenient RFC 8216 parser and the strict fps-v2 grammar. What the strict parser
/// accepts the lenient one accepts too, and an accepted playlist written by our writer parses
/// back to the same model.
enum HLSTarget {
    static let target = FuzzTarget("hls", "HLSParser lenient and fps-v2 strict; writer round trip") { input throws(FuzzViolation) in
        let lenient = try? HLSParser.parse(input, mode: .lenient)
        let strict = try? HLSParser.parse(input, mode: .fpsV2Strict)
        if strict != nil && lenient == nil {
            throw FuzzViolation("hls", "the strict parser accepted a playlist the lenient one refused")
        }
        if let strict, let written = try? HLSWriter.write(strict) {
            guard let reread = try? HLSParser.parse(written, mode: .fpsV2Strict), reread == strict else {
                throw FuzzViolation("hls", "a strict playlist does not round-trip through the writer")
            }
        }
        return lenient != nil ? .accepted : .refused
    }
}
