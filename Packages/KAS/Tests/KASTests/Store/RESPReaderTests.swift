@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Testing

@Suite struct RESPReaderTests {
    private static let nested: RESPValue = .array([
        .simple("OK"), .error("ERR wrong"), .integer(-42), .integer(Int64.max), .integer(Int64.min),
        .bulk(Array("héllo".utf8)), .bulk([0, 13, 10, 255]), .bulk([]), .bulk(nil), .array(nil), .array([]),
        .array([.array([.bulk(Array("deep".utf8))])]),
    ])

    @Test func everyKindOfValueRoundTrips() throws {
        let bytes = RESPWriter.encode(Self.nested)
        #expect(try RESPReader.parse(bytes) == Self.nested)
        #expect(try RESPReader.parse(Array("+OK\r\n".utf8)) == .simple("OK"))
        #expect(try RESPReader.parse(Array("$-1\r\n".utf8)) == .bulk(nil))
        #expect(try RESPReader.parse(Array("*-1\r\n".utf8)) == .array(nil))
        #expect(try RESPReader.parse(Array(":0\r\n".utf8)) == .integer(0))
    }

    @Test func everyTruncationIsIncompleteNotAnError() throws {
        let bytes = RESPWriter.encode(Self.nested)
        for end in 0..<bytes.count {
            #expect(try RESPReader.parse(Array(bytes[0..<end])) == nil, "prefix of \(end) bytes")
        }
    }

    @Test func bytesArrivingOneAtATimeGiveTheRepliesInOrder() throws {
        let replies: [RESPValue] = [.simple("PONG"), Self.nested, .integer(7), .bulk(Array("x".utf8))]
        let stream = replies.flatMap(RESPWriter.encode)
        var reader = RESPReader()
        var read: [RESPValue] = []
        for byte in stream {
            reader.append([byte])
            while let value = try reader.next() { read.append(value) }
        }
        #expect(read == replies)
        #expect(reader.bufferedByteCount == 0)
    }

    @Test(arguments: [
        ("?x\r\n", "unknown type byte"),
        ("_\r\n", "unknown type byte"),              // RESP3 null
        ("%1\r\n", "unknown type byte"),             // RESP3 map
        ("+OK\n", "line feed without"),
        ("+O\rK\r\n", "carriage return without"),
        (":12a\r\n", "not a decimal integer"),
        (":\r\n", "not a decimal integer"),
        (":+1\r\n", "not a decimal integer"),
        (":007\r\n", "not a decimal integer"),
        (":-0\r\n", "not a decimal integer"),
        (":9223372036854775808\r\n", "overflows"),
        (":-9223372036854775809\r\n", "overflows"),
        (":99999999999999999999\r\n", "not a decimal integer"),
        ("$-2\r\n", "outside"),
        ("$3\r\nabcd\r\n", "not followed by CRLF"),
        ("$99999999999\r\n", "outside"),
        ("*-5\r\n", "outside"),
        ("*99999999999\r\n", "outside"),
        ("*1\r\n!\r\n", "unknown type byte"),
        ("+OK\r\n+OK\r\n", "bytes follow"),
    ])
    func malformedRepliesAreTypedRefusals(input: String, reason: String) {
        #expect {
            _ = try RESPReader.parse(Array(input.utf8))
        } throws: { error in
            guard let error = error as? RedisError else { return false }
            return error.code == .protocolViolation && error.reason.contains(reason)
        }
    }

    @Test func limitsAreCheckedBeforeAllocating() throws {
        // A bulk length past the bound is refused from its header alone.
        let bulk = "$\(RESPLimits.maximumBulkLength + 1)\r\n"
        #expect(throws: RedisError(.protocolViolation, "")) { try RESPReader.parse(Array(bulk.utf8)) }
        // The largest array count with nothing behind it is merely incomplete: nothing reserved.
        #expect(try RESPReader.parse(Array("*\(RESPLimits.maximumArrayCount)\r\n".utf8)) == nil)
        // Nesting past the depth bound.
        let deep = String(repeating: "*1\r\n", count: RESPLimits.maximumDepth + 1) + ":1\r\n"
        #expect(throws: RedisError(.protocolViolation, "")) { try RESPReader.parse(Array(deep.utf8)) }
        let deepest = String(repeating: "*1\r\n", count: RESPLimits.maximumDepth) + ":1\r\n"
        #expect(try RESPReader.parse(Array(deepest.utf8)) != nil)
        // A status line that never ends is refused once it passes the line bound.
        let long = "+" + String(repeating: "a", count: RESPLimits.maximumLineLength + 1)
        #expect(throws: RedisError(.protocolViolation, "")) { try RESPReader.parse(Array(long.utf8)) }
        #expect(try RESPReader.parse(Array(long.dropLast().utf8)) == nil)
    }

    @Test func anIncompleteReplyIsBoundedInSize() throws {
        // Many bulk strings within the per-bulk bound whose sum passes the reply bound.
        var reader = RESPReader()
        let element = RESPWriter.encode(.bulk([UInt8](repeating: 0x61, count: 1 << 20)))
        reader.append(Array("*1000\r\n".utf8))
        var refused = false
        for _ in 0..<((RESPLimits.maximumReplyBytes >> 20) + 2) {
            reader.append(element)
            do { _ = try reader.next() } catch { refused = error.code == .protocolViolation; break }
        }
        #expect(refused)
    }

    @Test func commandsAreArraysOfBinarySafeBulkStrings() throws {
        let bytes = RESPWriter.command([Array("SET".utf8), [0, 13, 10], []])
        #expect(bytes == Array("*3\r\n$3\r\nSET\r\n$3\r\n".utf8) + [0, 13, 10] + Array("\r\n$0\r\n\r\n".utf8))
        #expect(try RESPReader.parse(bytes) == .array([.bulk(Array("SET".utf8)), .bulk([0, 13, 10]), .bulk([])]))
    }
}
