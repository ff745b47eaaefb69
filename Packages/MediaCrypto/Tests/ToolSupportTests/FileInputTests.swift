import Foundation
import Testing
@testable import MediaDRMToolSupport

@Suite struct FileInputTests {
    @Test func readsAndLimits() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try bytes.write(to: url)
        #expect(try FileInput.read(url.path, role: "input") == bytes)
        #expect(throws: ToolFailure.self) { try FileInput.read(url.path, role: "input", maxBytes: 1000) }
    }

    @Test func readsIntoAReusedBuffer() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        var buffer: [UInt8] = Array(repeating: 0xAA, count: 300_000)   // longer than the file: must shrink
        for size in [200_000, 0, 1, 65_536, 70_000] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try Data(bytes).write(to: url)
            try FileInput.read(url.path, role: "input", into: &buffer)
            #expect(buffer == bytes, "size \(size)")
        }
        #expect(throws: ToolFailure.self) { try FileInput.read(url.path, role: "input", maxBytes: 69_999, into: &buffer) }
        try FileInput.read(url.path, role: "input", maxBytes: 70_000, into: &buffer)
        #expect(buffer.count == 70_000)
        #expect(throws: ToolFailure.self) { try FileInput.read("/tmp", role: "input", into: &buffer) }
        #expect(throws: ToolFailure.self) { try FileInput.read("/no/such/file", role: "input", into: &buffer) }
        // A pipe has no size up front: the buffer grows as it is read.
        let pipe = Pipe()
        let payload = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let writeEnd = pipe.fileHandleForWriting
        let writer = Thread {
            writeEnd.write(Data(payload))
            try? writeEnd.close()
        }
        writer.start()
        try FileInput.read("/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)", role: "input", into: &buffer)
        #expect(buffer == payload)
    }

    @Test func missingFileNamesRoleAndPath() {
        do {
            _ = try FileInput.read("/no/such/file", role: "KAS private key")
            Issue.record("expected a failure")
        } catch {
            #expect(error.message == "cannot read KAS private key '/no/such/file': No such file or directory")
        }
    }

    @Test func directoryRefused() {
        #expect(throws: ToolFailure.self) { try FileInput.read("/tmp", role: "input") }
    }

    @Test func textMustBeUTF8() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("text-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data([0xFF, 0xFE, 0x00]).write(to: url)
        #expect(throws: ToolFailure.self) { try FileInput.readText(url.path, role: "policy") }
    }
}
