// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// A WebVTT file (W3C WebVTT, "WebVTT file syntax" §4.1), read strictly: the `WEBVTT` signature,
/// header lines, then blocks separated by blank lines: cues, `NOTE` comments (dropped), and
/// `STYLE`/`REGION` blocks, which must come before the first cue (kept as written, since every
/// segment of a rendition repeats them). Anything the syntax does not allow is refused with
/// its line number rather than skipped, as a browser's parser would: a packager must not
/// publish subtitles that lose cues silently.
public struct WebVTTFile: Sendable, Equatable {
    /// The text after `WEBVTT` on the first line (without the separating space or tab).
    public var signatureText: String
    /// The lines after the signature line up to the first blank line.
    public var headerLines: [String]
    /// `STYLE` and `REGION` blocks, in order, each as written (without the blank line after it).
    public var preambleBlocks: [String]
    public var cues: [WebVTTCue]

    public init(signatureText: String = "", headerLines: [String] = [], preambleBlocks: [String] = [], cues: [WebVTTCue]) {
        self.signatureText = signatureText
        self.headerLines = headerLines
        self.preambleBlocks = preambleBlocks
        self.cues = cues
    }

    /// Parses a whole file. Limits are checked before anything is allocated for the text.
    public init(parsing data: some Collection<UInt8>, limits: WebVTTLimits = WebVTTLimits()) throws(WebVTTError) {
        guard data.count <= limits.maximumBytes else {
            throw WebVTTError(.limitExceeded, "the file is \(data.count) bytes, over the \(limits.maximumBytes)-byte limit")
        }
        var bytes = Array(data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw WebVTTError(.notWebVTT, "the file is not UTF-8")
        }
        guard !text.unicodeScalars.contains("\u{0}") else { throw WebVTTError(.notWebVTT, "the file contains a NUL character") }
        let lines = Self.lines(text)
        if let long = lines.firstIndex(where: { $0.utf8.count > limits.maximumLineBytes }) {
            throw WebVTTError(.limitExceeded, "the line is over \(limits.maximumLineBytes) bytes", line: long + 1)
        }
        guard let first = lines.first, first.hasPrefix("WEBVTT") else {
            throw WebVTTError(.notWebVTT, "the file does not start with the WEBVTT signature", line: 1)
        }
        let rest = first.dropFirst(6)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else {
            throw WebVTTError(.notWebVTT, "WEBVTT must be followed by a space, a tab or the end of the line", line: 1)
        }
        signatureText = String(rest.dropFirst())
        var index = 1
        var header: [String] = []
        while index < lines.count, !lines[index].isEmpty {
            guard !lines[index].contains("-->") else {
                throw WebVTTError(.invalidBlock, "a cue timing line in the header; a blank line must follow the header", line: index + 1)
            }
            header.append(lines[index])
            index += 1
        }
        headerLines = header
        var preamble: [String] = []
        var cues: [WebVTTCue] = []
        while index < lines.count {
            while index < lines.count, lines[index].isEmpty { index += 1 }
            guard index < lines.count else { break }
            let blockStart = index
            while index < lines.count, !lines[index].isEmpty { index += 1 }
            let block = Array(lines[blockStart ..< index])
            let keyword = block[0]
            if Self.isKeyword(keyword, "NOTE") {
                guard !block.contains(where: { $0.contains("-->") }) else {
                    throw WebVTTError(.invalidBlock, "a NOTE block may not contain \"-->\"", line: blockStart + 1)
                }
                continue
            }
            if Self.isKeyword(keyword, "STYLE") || Self.isKeyword(keyword, "REGION") {
                guard cues.isEmpty else {
                    throw WebVTTError(.invalidBlock, "STYLE and REGION blocks must come before the first cue", line: blockStart + 1)
                }
                guard !block.contains(where: { $0.contains("-->") }) else {
                    throw WebVTTError(.invalidBlock, "a \(keyword) block may not contain \"-->\"", line: blockStart + 1)
                }
                preamble.append(block.joined(separator: "\n"))
                continue
            }
            guard cues.count < limits.maximumCues else {
                throw WebVTTError(.limitExceeded, "more than \(limits.maximumCues) cues", line: blockStart + 1)
            }
            let cue = try Self.cue(block, line: blockStart + 1)
            if let previous = cues.last, cue.start < previous.start {
                throw WebVTTError(.outOfOrder, "the cue starts before the previous cue; cues must be in order of start time", line: blockStart + 1)
            }
            cues.append(cue)
        }
        preambleBlocks = preamble
        self.cues = cues
    }

    /// The file as text: the signature, the given header lines (this file's when nil), the
    /// preamble blocks and `cues` (this file's when nil), each block followed by a blank line.
    public func serialized(headerLines: [String]? = nil, cues: [WebVTTCue]? = nil) -> String {
        var text = "WEBVTT" + (signatureText.isEmpty ? "" : " " + signatureText) + "\n"
        for line in headerLines ?? self.headerLines { text += line + "\n" }
        text += "\n"
        for block in preambleBlocks + (cues ?? self.cues).map(\.block) { text += block + "\n\n" }
        return text
    }

    /// Splits on CRLF, LF or CR (§4.1: any of them ends a line).
    static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n", previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                lines.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        lines.append(String(current))
        return lines
    }

    /// `NOTE`, `STYLE`, `REGION`: the word alone on its line or followed by a space or tab.
    static func isKeyword(_ line: String, _ word: String) -> Bool {
        guard line.hasPrefix(word) else { return false }
        let rest = line.dropFirst(word.count)
        return rest.isEmpty || rest.first == " " || rest.first == "\t"
    }

    /// A cue block: an optional identifier line, the timing line, then the payload lines.
    static func cue(_ block: [String], line: Int) throws(WebVTTError) -> WebVTTCue {
        var identifier: String?
        var timingIndex = 0
        if !block[0].contains("-->") {
            guard block.count >= 2, block[1].contains("-->") else {
                throw WebVTTError(.invalidBlock, "a block that is not a cue, NOTE, STYLE or REGION (no timing line)", line: line)
            }
            identifier = block[0]
            timingIndex = 1
        }
        let (start, end, settings) = try timing(block[timingIndex], line: line + timingIndex)
        let payload = block[(timingIndex + 1)...]
        if let bad = payload.firstIndex(where: { $0.contains("-->") }) {
            throw WebVTTError(.invalidBlock, "cue text may not contain \"-->\" (a blank line is missing before the next cue?)", line: line + bad)
        }
        return WebVTTCue(identifier: identifier, start: start, end: end, settings: settings, text: payload.joined(separator: "\n"))
    }

    /// `start --> end [settings]`, the arrow between spaces or tabs.
    static func timing(_ text: String, line: Int) throws(WebVTTError) -> (Int64, Int64, String) {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let fields = text.split(whereSeparator: isBlank)
        guard fields.count >= 3, fields[1] == "-->" else {
            throw WebVTTError(.invalidTiming, "the timing line must be \"start --> end\" with blanks around the arrow", line: line)
        }
        guard let start = WebVTTTimestamp.parse(fields[0]) else {
            throw WebVTTError(.invalidTiming, "the start time is not a WebVTT timestamp ([hh:]mm:ss.ttt)", line: line)
        }
        guard let end = WebVTTTimestamp.parse(fields[2]) else {
            throw WebVTTError(.invalidTiming, "the end time is not a WebVTT timestamp ([hh:]mm:ss.ttt)", line: line)
        }
        guard end > start else { throw WebVTTError(.outOfOrder, "the cue ends at or before its start", line: line) }
        guard !text.hasPrefix(" "), !text.hasPrefix("\t") else {
            throw WebVTTError(.invalidTiming, "the timing line starts with a blank", line: line)
        }
        let settings = fields.dropFirst(3).joined(separator: " ")
        if settings.contains("-->") { throw WebVTTError(.invalidTiming, "a second arrow on the timing line", line: line) }
        return (start, end, settings)
    }
}
