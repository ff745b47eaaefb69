/// An incremental, strict reader of RESP2 replies
/// (https://redis.io/docs/latest/develop/reference/protocol-spec/).
///
/// Bytes arrive from the socket in any split (`append`); `next()` returns the next complete
/// reply, or nil while it is still incomplete, consuming nothing until a whole reply is there.
/// It refuses everything RESP2 does not allow: an unknown type byte (RESP3's `_`, `%`, `#` ...
/// included: the client never sends `HELLO 3`), a CR without LF or a LF without CR in a line,
/// lengths and integers that are not canonical decimal or overflow `Int64`, a negative length
/// other than the null `-1`, bulk data not followed by CRLF. Every limit in `RESPLimits` is
/// checked before anything is allocated, so a hostile or broken server cannot make the KAS
/// allocate, recurse or buffer without bound; a refusal is `RedisError(.protocolViolation)` and
/// the connection that produced it is closed (its stream position is lost).
///
/// Work per received chunk is bounded by the chunk, not by the reply so far: a `RESPFrameScanner`
/// finds where the reply ends, resuming where it stopped, skipping bulk data by its length and
/// allocating nothing; only a complete reply is then parsed into values, once.
package struct RESPReader: Sendable {
    private var buffer: [UInt8] = []
    /// Where the next reply starts in `buffer`; consumed bytes are dropped lazily.
    private var start = 0
    private var scanner = RESPFrameScanner(position: 0)

    public init() {}

    /// Bytes received and not yet returned as replies.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds bytes received from the server.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanner = RESPFrameScanner(position: 0)
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, or nil if more bytes are needed.
    public mutating func next() throws(RedisError) -> RESPValue? {
        guard start < buffer.count else { return nil }
        guard let end = try scanner.scan(buffer) else {
            guard bufferedByteCount <= RESPLimits.maximumReplyBytes else {
                throw RESPByteParser.violation("a reply is larger than \(RESPLimits.maximumReplyBytes) bytes")
            }
            return nil
        }
        var parser = RESPByteParser(bytes: buffer, position: start)
        // The scanner checked the framing the parser checks, so the parser takes exactly the
        // scanned bytes; anything else would be a bug here, reported rather than trusted.
        guard let value = try parser.value(depth: 0), parser.position == end else {
            throw RESPByteParser.violation("the reply's framing was read two ways")
        }
        start = end
        if start > RESPLimits.compactionThreshold {
            buffer.removeFirst(start)
            start = 0
        }
        scanner = RESPFrameScanner(position: start)
        return value
    }

    /// Reads exactly one reply from `bytes`: nil when `bytes` is an incomplete reply,
    /// `.protocolViolation` when it is malformed or has bytes after the reply.
    public static func parse(_ bytes: [UInt8]) throws(RedisError) -> RESPValue? {
        var reader = RESPReader()
        reader.append(bytes)
        guard let value = try reader.next() else { return nil }
        guard reader.bufferedByteCount == 0 else { throw RESPByteParser.violation("bytes follow the reply") }
        return value
    }
}

/// The bounds of what the reader accepts, each written once here.
package enum RESPLimits {
    /// Longest bulk string. The KAS stores small records (sessions, licenses, sealed playbacks);
    /// 16 MiB leaves room for a migration's batch without letting a reply take the memory.
    public static let maximumBulkLength = 16 << 20
    /// Most elements in one array (a `SCAN` page, a script's list of rows).
    public static let maximumArrayCount = 1 << 20
    /// Deepest nesting of arrays.
    public static let maximumDepth = 32
    /// Longest status, error or integer line, CRLF excluded.
    public static let maximumLineLength = 64 << 10
    /// Most bytes one incomplete reply may take in the buffer (all its elements together).
    public static let maximumReplyBytes = 64 << 20
    /// Consumed bytes are dropped from the buffer once this many have accumulated.
    static let compactionThreshold = 64 << 10
}

/// One pass over the buffer from a reply's first byte. `value` returns nil when the bytes end
/// before the reply does; it never reads past `bytes.count`.
struct RESPByteParser {
    let bytes: [UInt8]
    private(set) var position: Int

    init(bytes: [UInt8], position: Int) {
        self.bytes = bytes
        self.position = position
    }

    static func violation(_ reason: String) -> RedisError {
        RedisError(.protocolViolation, "the server's reply is not valid RESP2: \(reason)")
    }

    static let tooDeep = violation("arrays are nested deeper than \(RESPLimits.maximumDepth)")

    static func unknownType(_ type: UInt8) -> RedisError {
        violation("unknown type byte 0x\(String(type, radix: 16)) (only RESP2's + - : $ * are spoken)")
    }

    mutating func value(depth: Int) throws(RedisError) -> RESPValue? {
        guard depth <= RESPLimits.maximumDepth else {
            throw Self.tooDeep
        }
        guard position < bytes.count else { return nil }
        let type = bytes[position]
        position += 1
        switch type {
        case RESPType.simple:
            return try line().map { .simple(String(decoding: $0, as: UTF8.self)) }
        case RESPType.error:
            return try line().map { .error(String(decoding: $0, as: UTF8.self)) }
        case RESPType.integer:
            guard let text = try line() else { return nil }
            return .integer(try Self.integer(text, what: "an integer reply"))
        case RESPType.bulk, RESPType.array:
            let isBulk = type == RESPType.bulk
            switch try length(isBulk ? "bulk length" : "array count",
                              limit: isBulk ? RESPLimits.maximumBulkLength : RESPLimits.maximumArrayCount) {
            case .incomplete: return nil
            case .null: return isBulk ? .bulk(nil) : .array(nil)
            case .count(let count): return isBulk ? try bulkData(count) : try elements(count, depth: depth)
            }
        default:
            throw Self.unknownType(type)
        }
    }

    /// `count` bytes and their CRLF, nil if they have not all arrived.
    private mutating func bulkData(_ count: Int) throws(RedisError) -> RESPValue? {
        guard bytes.count - position >= count + 2 else { return nil }
        let data = Array(bytes[position..<(position + count)])
        guard bytes[position + count] == RESPType.carriageReturn, bytes[position + count + 1] == RESPType.lineFeed else {
            throw Self.violation("bulk data is not followed by CRLF")
        }
        position += count + 2
        return .bulk(data)
    }

    /// `count` values one level deeper, nil if they have not all arrived.
    private mutating func elements(_ count: Int, depth: Int) throws(RedisError) -> RESPValue? {
        // Every element takes at least 3 bytes ("+\r\n"), so the bytes present bound what is
        // worth reserving: a huge count with few bytes behind it allocates nothing up front.
        var elements: [RESPValue] = []
        elements.reserveCapacity(min(count, (bytes.count - position) / 3))
        for _ in 0..<count {
            guard let element = try value(depth: depth + 1) else { return nil }
            elements.append(element)
        }
        return .array(elements)
    }

    enum LengthLine {
        case incomplete
        /// `-1`: RESP2's null bulk string or array.
        case null
        case count(Int)
    }

    /// The length line of a bulk string or an array: 0...limit, or -1 for null.
    private mutating func length(_ what: String, limit: Int) throws(RedisError) -> LengthLine {
        guard let text = try line() else { return .incomplete }
        return try Self.length(text, what, limit: limit)
    }

    static func length(_ text: ArraySlice<UInt8>, _ what: String, limit: Int) throws(RedisError) -> LengthLine {
        let value = try integer(text, what: "a " + what)
        if value == -1 { return .null }
        guard value >= 0, value <= limit else {
            throw violation("\(what) \(value) is outside 0...\(limit) (or -1 for null)")
        }
        return .count(Int(value))
    }

    /// The bytes up to CRLF (consumed with it), nil if the CRLF has not arrived yet.
    private mutating func line() throws(RedisError) -> ArraySlice<UInt8>? {
        guard let end = try Self.lineEnd(bytes, from: position) else { return nil }
        defer { position = end + 2 }
        return bytes[position..<end]
    }

    /// Where the line starting at `from` ends (its CR), nil if its CRLF has not arrived yet.
    static func lineEnd(_ bytes: [UInt8], from lineStart: Int) throws(RedisError) -> Int? {
        var index = lineStart
        while index < bytes.count {
            let byte = bytes[index]
            if byte == RESPType.lineFeed { throw violation("a line feed without a carriage return") }
            if byte == RESPType.carriageReturn {
                guard index + 1 < bytes.count else { return nil }
                guard bytes[index + 1] == RESPType.lineFeed else { throw violation("a carriage return without a line feed") }
                return index
            }
            index += 1
            guard index - lineStart <= RESPLimits.maximumLineLength else {
                throw violation("a line is longer than \(RESPLimits.maximumLineLength) bytes")
            }
        }
        return nil
    }

    /// A canonical decimal `Int64`: an optional '-', then digits without a leading zero.
    static func integer(_ text: ArraySlice<UInt8>, what: String) throws(RedisError) -> Int64 {
        var digits = text[...]
        let negative = digits.first == RESPType.minus
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 19,
              digits.allSatisfy({ $0 >= RESPType.zero && $0 <= RESPType.nine }),
              digits.count == 1 || digits.first != RESPType.zero,
              !(negative && digits == [RESPType.zero]) else {
            throw violation("\(what) is not a decimal integer")
        }
        var magnitude: UInt64 = 0
        for digit in digits { magnitude = magnitude * 10 + UInt64(digit - RESPType.zero) }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw violation("\(what) overflows 64 bits") }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw violation("\(what) overflows 64 bits") }
        return Int64(magnitude)
    }
}

/// RESP2's type bytes and delimiters.
enum RESPType {
    static let simple = UInt8(ascii: "+")
    static let error = UInt8(ascii: "-")
    static let integer = UInt8(ascii: ":")
    static let bulk = UInt8(ascii: "$")
    static let array = UInt8(ascii: "*")
    static let carriageReturn = UInt8(ascii: "\r")
    static let lineFeed = UInt8(ascii: "\n")
    static let minus = UInt8(ascii: "-")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
}
