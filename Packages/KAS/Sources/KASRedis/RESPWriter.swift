/// Writes RESP2: commands as arrays of bulk strings (the only form a client sends), and any
/// value (for tests and the fuzz target's round trip). A simple or error string holding CR or
/// LF cannot be written as RESP2; `encode` writes such a string as a bulk string instead, so
/// its output is always readable.
package enum RESPWriter {
    /// `*N\r\n` then `$len\r\n<bytes>\r\n` per argument: binary-safe.
    public static func command(_ arguments: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + arguments.reduce(0) { $0 + $1.count + 16 })
        header(RESPType.array, arguments.count, into: &out)
        for argument in arguments {
            header(RESPType.bulk, argument.count, into: &out)
            out += argument
            out += [RESPType.carriageReturn, RESPType.lineFeed]
        }
        return out
    }

    /// The RESP2 bytes of `value`.
    public static func encode(_ value: RESPValue) -> [UInt8] {
        var out: [UInt8] = []
        encode(value, into: &out)
        return out
    }

    private static func encode(_ value: RESPValue, into out: inout [UInt8]) {
        switch value {
        case .simple(let text), .error(let text):
            let bytes = Array(text.utf8)
            guard !bytes.contains(RESPType.carriageReturn), !bytes.contains(RESPType.lineFeed) else {
                encode(.bulk(bytes), into: &out)
                return
            }
            if case .simple = value { out.append(RESPType.simple) } else { out.append(RESPType.error) }
            out += bytes
            out += [RESPType.carriageReturn, RESPType.lineFeed]
        case .integer(let number):
            out.append(RESPType.integer)
            out += Array(String(number).utf8)
            out += [RESPType.carriageReturn, RESPType.lineFeed]
        case .bulk(nil):
            header(RESPType.bulk, -1, into: &out)
        case .bulk(let bytes?):
            header(RESPType.bulk, bytes.count, into: &out)
            out += bytes
            out += [RESPType.carriageReturn, RESPType.lineFeed]
        case .array(nil):
            header(RESPType.array, -1, into: &out)
        case .array(let elements?):
            header(RESPType.array, elements.count, into: &out)
            for element in elements { encode(element, into: &out) }
        }
    }

    private static func header(_ type: UInt8, _ count: Int, into out: inout [UInt8]) {
        out.append(type)
        out += Array(String(count).utf8)
        out += [RESPType.carriageReturn, RESPType.lineFeed]
    }
}
