// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// One playlist line after the line grammar: a tag or a URI. `#EXTM3U` on line 1, blank lines
/// and comments never become an `HLSLine` (strict mode refuses the last two outright).
package struct HLSLine {
    package enum Kind {
        case tag(name: String, value: String?)
        case uri(String)
    }

    package let number: Int
    package let kind: Kind
}

enum HLSLineReader {
    /// Splits `bytes` into lines. Limits on bytes and lines are checked before any line is
    /// materialized.
    static func read(_ bytes: [UInt8], strict: Bool, limits: HLSLimits) throws(HLSError) -> (lines: [HLSLine], lastLine: Int) {
        guard bytes.count <= limits.maxBytes else {
            throw HLSError(.tooLarge, "playlist exceeds \(limits.maxBytes) bytes")
        }
        var lineFeeds = 0
        for b in bytes where b == 0x0A { lineFeeds += 1 }
        let lineCount = lineFeeds + (bytes.last == 0x0A ? 0 : 1)
        guard lineCount <= limits.maxLines else {
            throw HLSError(.tooManyLines, "playlist exceeds \(limits.maxLines) lines")
        }

        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            // RFC 8216 §4.1: clients SHOULD refuse a BOM; general HLS readers commonly skip it.
            guard !strict else { throw HLSError(.invalidEncoding, "byte order mark", line: 1) }
            start = 3
        }

        var lines: [HLSLine] = []
        var number = 0
        var lastLine = 0
        var cursor = start
        while cursor < bytes.count || number == 0 {
            number += 1
            var end = cursor
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let terminated = end < bytes.count
            var contentEnd = end
            if contentEnd > cursor, bytes[contentEnd - 1] == 0x0D {
                guard terminated else { throw HLSError(.invalidLineEnding, "CR without LF", line: number) }
                guard !strict else { throw HLSError(.invalidLineEnding, "CRLF line ending (fps-v2 §7.1 allows LF only)", line: number) }
                contentEnd -= 1
            }
            let raw = bytes[cursor..<contentEnd]
            cursor = terminated ? end + 1 : end
            lastLine = number

            if raw.contains(0x0D) {
                throw HLSError(.invalidLineEnding, "CR inside a line", line: number)
            }
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw HLSError(.invalidEncoding, "line is not UTF-8", line: number)
            }
            if HLSSyntax.containsControl(text, allowTab: !strict) {
                throw HLSError(.invalidEncoding, "control character", line: number)
            }
            if number == 1 {
                guard text == "#EXTM3U" else { throw HLSError(.missingHeader, "the first line must be #EXTM3U", line: number) }
                continue
            }
            if text.isEmpty || (!strict && text.allSatisfy({ $0 == " " || $0 == "\t" })) {
                guard !strict else { throw HLSError(.blankLine, "blank line (fps-v2 §7.1)", line: number) }
                continue
            }
            if text.hasPrefix("#EXT") {
                let body = text.dropFirst()
                if let colon = body.firstIndex(of: ":") {
                    lines.append(HLSLine(number: number, kind: .tag(name: String(body[..<colon]), value: String(body[body.index(after: colon)...]))))
                } else {
                    lines.append(HLSLine(number: number, kind: .tag(name: String(body), value: nil)))
                }
                continue
            }
            if text.hasPrefix("#") {
                guard !strict else { throw HLSError(.commentLine, "comment line (fps-v2 §7.1)", line: number) }
                continue
            }
            lines.append(HLSLine(number: number, kind: .uri(text)))
        }
        return (lines, lastLine)
    }
}
