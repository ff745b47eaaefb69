@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis

/// The RESP2 reader of the KAS's Redis client, fed what a broken or hostile Redis could send:
/// read whole and read in small chunks (as the socket delivers it), both must give the same
/// replies and the same end (incomplete or refused), and every reply read must survive the
/// writer's round trip unchanged. An input is accepted when it is a stream of complete replies.
enum RESPTarget {
    static let target = FuzzTarget("resp", "RESPReader whole and in chunks; RESPWriter round trip") { input throws(FuzzViolation) in
        let whole = read(input, chunk: max(input.count, 1))
        // The first byte picks the chunk size, so the fuzzer explores the splits too.
        let chunked = read(input, chunk: 1 + Int(input.first ?? 0) % 16)
        guard whole.replies == chunked.replies, whole.end == chunked.end else {
            throw FuzzViolation("resp", "reading in chunks disagrees with reading the whole input")
        }
        for reply in whole.replies {
            let written = RESPWriter.encode(reply)
            guard let reread = try? RESPReader.parse(written), reread == reply else {
                throw FuzzViolation("resp", "the writer's output does not read back as the same reply")
            }
            guard RESPWriter.encode(reread) == written else { throw FuzzViolation("resp", "writing is not a fixed point") }
        }
        return whole.end == .complete && !whole.replies.isEmpty ? .accepted : .refused
    }

    private enum End: Equatable { case complete, incomplete, refused }

    private static func read(_ input: [UInt8], chunk: Int) -> (replies: [RESPValue], end: End) {
        var reader = RESPReader()
        var replies: [RESPValue] = []
        var offset = 0
        while offset < input.count {
            let next = min(offset + chunk, input.count)
            reader.append(input[offset..<next])
            offset = next
            do {
                while let reply = try reader.next() { replies.append(reply) }
            } catch {
                return (replies, .refused)
            }
        }
        return (replies, reader.bufferedByteCount == 0 ? .complete : .incomplete)
    }
}
