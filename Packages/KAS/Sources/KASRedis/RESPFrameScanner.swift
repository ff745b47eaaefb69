/// Finds where one RESP2 reply ends in a growing buffer, resumably: it keeps its position and
/// the elements still owed by each open array, so bytes already scanned are not scanned again
/// when more arrive. Bulk data is skipped by its length, never copied, and nothing is allocated
/// beyond the stack of open arrays (at most `RESPLimits.maximumDepth` deep). It checks the same
/// framing rules and limits as `RESPByteParser`, which then builds the values of a complete
/// reply in one pass.
struct RESPFrameScanner: Sendable {
    /// Where scanning continues: the start of the next element's header.
    private var position: Int
    /// For each open array, outermost first, how many elements it still owes.
    private var owed: [Int] = []

    init(position: Int) { self.position = position }

    /// The index just past the reply, or nil if it has not all arrived.
    mutating func scan(_ bytes: [UInt8]) throws(RedisError) -> Int? {
        while position < bytes.count {
            let type = bytes[position]
            guard let lineEnd = try RESPByteParser.lineEnd(bytes, from: position + 1) else { return nil }
            let text = bytes[(position + 1)..<lineEnd]
            let afterLine = lineEnd + 2
            switch type {
            case RESPType.simple, RESPType.error:
                position = afterLine
            case RESPType.integer:
                _ = try RESPByteParser.integer(text, what: "an integer reply")
                position = afterLine
            case RESPType.bulk:
                switch try RESPByteParser.length(text, "bulk length", limit: RESPLimits.maximumBulkLength) {
                case .incomplete, .null:
                    position = afterLine
                case .count(let count):
                    guard bytes.count - afterLine >= count + 2 else { return nil }
                    guard bytes[afterLine + count] == RESPType.carriageReturn, bytes[afterLine + count + 1] == RESPType.lineFeed else {
                        throw RESPByteParser.violation("bulk data is not followed by CRLF")
                    }
                    position = afterLine + count + 2
                }
            case RESPType.array:
                position = afterLine
                if case .count(let count) = try RESPByteParser.length(text, "array count", limit: RESPLimits.maximumArrayCount),
                   count > 0 {
                    owed.append(count)
                    // Its elements are one level deeper than the arrays now open.
                    guard owed.count <= RESPLimits.maximumDepth else {
                        throw RESPByteParser.tooDeep
                    }
                    continue
                }
            default:
                throw RESPByteParser.unknownType(type)
            }
            // One element is complete: it pays what its array owes, closing the arrays it completes.
            while let last = owed.last {
                if last > 1 {
                    owed[owed.count - 1] = last - 1
                    break
                }
                owed.removeLast()
            }
            if owed.isEmpty { return position }
        }
        return nil
    }
}
