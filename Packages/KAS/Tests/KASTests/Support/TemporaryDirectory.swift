import Foundation

/// A fresh directory under the system temporary directory, removed when the test is done.
final class TemporaryDirectory {
    let path: String

    init(_ label: String = "kas-test") throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func appending(_ component: String) -> String {
        (path as NSString).appendingPathComponent(component)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = appending(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// The permission bits of a file, read with stat(2).
func fileMode(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

/// Runs a program and returns its status, stdout and stderr.
@discardableResult
func runProcess(_ executable: String, _ arguments: [String], stdin: Data? = nil,
                environment: [String: String]? = nil, currentDirectory: String? = nil) throws -> (status: Int32, stdout: Data, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return (process.terminationStatus, outData, String(decoding: errData, as: UTF8.self))
}

/// The size of a SQLite write-ahead log: 0 when the file is absent (a clean close may delete it),
/// otherwise its size as the file system reports it; a size that cannot be read is an error, so
/// "the WAL is empty" never passes on a failed read.
func writeAheadLogBytes(_ path: String) throws -> Int {
    guard FileManager.default.fileExists(atPath: path) else { return 0 }
    guard let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber else {
        throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path])
    }
    return size.intValue
}
