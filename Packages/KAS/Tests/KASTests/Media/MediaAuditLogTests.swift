import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import Testing

@Suite struct MediaAuditLogTests {
    private func event(_ reason: String) -> MediaAuditEvent {
        MediaAuditEvent(time: Date(timeIntervalSince1970: 1_800_000_000), event: "key_request", viewerHash: "0123456789abcdef",
                        asset: "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b", component: "video", protocol: "tdf",
                        decision: .deny, reason: reason, latencyMilliseconds: 1.5)
    }

    @Test func writesOneJSONObjectPerLine() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = try MediaAuditLog(path: directory.appendingPathComponent("audit.log").path)
        log.record(event("key_binding_mismatch"))
        log.record(event("not_entitled"))
        let lines = try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONParser.parse(Data(lines[0].utf8)).object)
        #expect(first.keys.sorted() == ["asset", "component", "decision", "event", "latencyMs", "protocol", "reason", "time", "viewer"])
        #expect(first["time"]?.string == "2027-01-15T08:00:00.000Z")
        #expect(first["reason"]?.string == "key_binding_mismatch")
        let attributes = try FileManager.default.attributesOfItem(atPath: log.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func everyLineNamesTheNode() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = try MediaAuditLog(path: directory.appendingPathComponent("audit.log").path, node: "kas-b")
        log.record(event("started"))
        log.record(MediaAuditEvent.sessionEnded(viewer: Identity(subject: "alice", issuer: "urn:test"), asset: "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b",
                                                component: nil, reason: "ended_over_stream_limit", time: Date()))
        let lines = try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            let object = try #require(try JSONParser.parse(Data(line.utf8)).object)
            #expect(object["node"]?.string == "kas-b")
        }
        // Without a node the line has no such field (a single KAS).
        #expect(!event("x").jsonLine.contains("\"node\""))
    }

    @Test func rotatesBySizeAndKeepsAppending() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("audit.log").path
        let log = try MediaAuditLog(path: path, maxBytes: 1024, keepFiles: 2)
        let lineSize = event("x").jsonLine.utf8.count + 1
        for index in 0..<(3 * 1024 / lineSize + 3) { log.record(event("r\(index)")) }
        let manager = FileManager.default
        #expect(manager.fileExists(atPath: path + ".1") && manager.fileExists(atPath: path + ".2"))
        #expect(!manager.fileExists(atPath: path + ".3"))
        for file in [path, path + ".1", path + ".2"] {
            let size = try #require(try manager.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size <= 1024)
        }
        // A reopened log appends to the current file.
        let before = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
        let reopened = try MediaAuditLog(path: path, maxBytes: 1 << 20, keepFiles: 2)
        reopened.record(event("after"))
        let after = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(after.count == before + 1)
        #expect(after.last?.contains("\"after\"") == true)
    }
}
