import Foundation
import MediaDRMZIP
import Testing

/// Compresses with the system gzip (an independent implementation of the format).
private func systemGzip(_ data: Data) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
    process.arguments = ["-c", "-n"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let writer = Thread {
        input.fileHandleForWriting.write(data)
        try? input.fileHandleForWriting.close()
    }
    writer.start()
    let compressed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return compressed
}

@Suite struct GzipDecoderTests {
    @Test func inflatesWhatSystemGzipWrites() throws {
        let text = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let compressed = try systemGzip(text)
        #expect(try GzipDecoder.decompress(compressed) == text)
        #expect(try GzipDecoder.decompress(try systemGzip(Data())) == Data())
    }

    @Test func concatenatedMembersInflateToTheConcatenation() throws {
        let first = Data("first member;".utf8), second = Data("second member".utf8)
        #expect(try GzipDecoder.decompress(try systemGzip(first) + systemGzip(second)) == first + second)
    }

    @Test func everyTruncationFails() throws {
        let compressed = try systemGzip(Data(repeating: 0x41, count: 1000) + Data("tail".utf8))
        #expect(throws: GzipError(.malformed, "")) { try GzipDecoder.decompress(Data()) }
        for length in 1..<compressed.count {
            let error = #expect(throws: GzipError.self, "prefix \(length)") { try GzipDecoder.decompress(compressed.prefix(length)) }
            // A cut member is `truncated`; never a crash, never partial output.
            #expect(error?.code == .truncated, "prefix \(length)")
        }
    }

    @Test func corruptionIsRefused() throws {
        let compressed = try systemGzip(Data("some body worth protecting".utf8))
        var badCRC = compressed
        badCRC[badCRC.count - 6] ^= 0x01   // CRC-32 in the trailer
        #expect(throws: GzipError(.malformed, "")) { try GzipDecoder.decompress(badCRC) }
        var badSize = compressed
        badSize[badSize.count - 1] ^= 0x01  // ISIZE in the trailer
        #expect(throws: GzipError(.malformed, "")) { try GzipDecoder.decompress(badSize) }
        var badMagic = compressed
        badMagic[0] = 0x1E
        #expect(throws: GzipError(.malformed, "")) { try GzipDecoder.decompress(badMagic) }
        #expect(throws: GzipError(.malformed, "")) { try GzipDecoder.decompress(compressed + Data("junk".utf8)) }
        #expect(throws: GzipError(.malformed, "")) { try GzipDecoder.decompress(Data()) }
        // A zlib (RFC 1950) stream is not gzip.
        #expect(throws: GzipError(.malformed, "")) { try GzipDecoder.decompress(Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])) }
    }

    @Test func bombsStopAtTheOutputBound() throws {
        let bomb = try systemGzip(Data(repeating: 0, count: 20 << 20))
        #expect(bomb.count < 64 << 10)
        #expect(throws: GzipError(.tooLarge, "")) { try GzipDecoder.decompress(bomb) }
        let small = try systemGzip(Data(repeating: 0, count: 1001))
        #expect(throws: GzipError(.tooLarge, "")) { try GzipDecoder.decompress(small, maximumOutput: 1000) }
        #expect(try GzipDecoder.decompress(small, maximumOutput: 1001).count == 1001)
    }
}
