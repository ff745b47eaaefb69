import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MediaDRMEncoding

@Suite struct AtomicFileWriterTests {
    func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func entries(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    @Test func commitReplacesDestination() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.bin").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let writer = try AtomicFileWriter(destination: path)
        try writer.write(Data("new ".utf8))
        try writer.write([UInt8]("bytes".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
        #expect(try entries(dir).count == 2)
        try writer.commit()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("new bytes".utf8))
        #expect(try entries(dir) == ["out.bin"])
        #expect(throws: AtomicFileError(.closed, path: path, reason: "the file is already closed")) { try writer.write(Data([1])) }
    }

    /// Renaming over a pipe, device or directory would replace it (as root, /dev/null with a
    /// regular file), so only a missing destination or a regular file is ever replaced.
    @Test func refusesToReplaceANonRegularFile() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let subdirectory = dir.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: subdirectory, withIntermediateDirectories: false)
        for path in [fifo, subdirectory.path] {
            let error = #expect(throws: AtomicFileError.self) { try AtomicFileWriter(destination: path) }
            #expect(error?.code == .notARegularFile)
        }
        var status = stat()
        #expect(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(try entries(dir) == ["pipe", "sub"])
    }

    @Test func failureLeavesNothing() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.bin").path
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try AtomicFileWriter.produce(path) { writer in
                try writer.write(Data(repeating: 7, count: 100))
                throw Boom()
            }
        }
        #expect(try entries(dir) == [])
    }

    @Test func droppedWriterLeavesNothing() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.bin").path
        do {
            let writer = try AtomicFileWriter(destination: path)
            try writer.write(Data([1, 2, 3]))
        }
        #expect(try entries(dir) == [])
    }

    @Test func produceCommits() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.bin").path
        let value = try AtomicFileWriter.produce(path) { writer in
            writer.fileHandle.write(Data("via handle".utf8))
            return 42
        }
        #expect(value == 42)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("via handle".utf8))
    }

    @Test func unwritableDirectoryNamesFile() throws {
        let path = "/nonexistent-dir-\(UUID().uuidString)/out.bin"
        do {
            try AtomicFileWriter.write(Data([1]), to: path)
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .system && error.path == path)
            #expect(error.reason == "No such file or directory")
            #expect(error.description == "cannot write '\(path)': No such file or directory")
        }
    }

    @Test func directoryDestinationRefused() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: AtomicFileError.self) { try AtomicFileWriter(destination: dir.path) }
    }

    /// A mode is set exactly from the file's creation on: the umask (022 or wider on any
    /// machine that runs this) would have taken the group and other write bits from 0666.
    @Test func aModeIsSetExactly() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("shared").path
        let writer = try AtomicFileWriter(destination: path, mode: 0o666)
        var status = stat()
        #expect(stat(writer.temporaryPath, &status) == 0 && status.st_mode & 0o777 == 0o666)
        try writer.write(Data("text".utf8))
        try writer.commit()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o666)
        try AtomicFileWriter.write(Data("key".utf8), to: path, mode: 0o600)
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }

    /// A bare name is written in the current directory (no path method traps on it).
    @Test func pathsSplitAtTheLastSlash() {
        #expect(AtomicFileWriter.split("d") == ("", "d"))
        #expect(AtomicFileWriter.split("/k") == ("/", "k"))
        #expect(AtomicFileWriter.split("a/b/") == ("a", "b"))
        #expect(AtomicFileWriter.split("a/b/c.pem") == ("a/b", "c.pem"))
    }
}
