import Foundation
import Testing
@testable import ToolSupport

@Suite struct FileInputTests {
    @Test func readsAndLimits() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try bytes.write(to: url)
        #expect(try FileInput.read(url.path, role: "input") == bytes)
        #expect(throws: ToolFailure.self) { try FileInput.read(url.path, role: "input", maxBytes: 1000) }
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
