import Foundation
import Testing

/// Finds and runs the BUILT `tdf` executable and the Python checkers of Tools/python, so these
/// tests exercise exactly what a user runs, against code that shares nothing with ours.
enum ToolHarness {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The repository root: `MEDIADRM_ROOT` (set by the Makefile) or the first ancestor of this
    /// file holding Tools/python.
    static func repositoryRoot() throws -> URL {
        if let root = ProcessInfo.processInfo.environment["MEDIADRM_ROOT"], !root.isEmpty,
           FileManager.default.fileExists(atPath: root + "/Tools/python/tdf_decrypt.py") {
            return URL(fileURLWithPath: root)
        }
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Tools/python/tdf_decrypt.py").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        throw Failure("cannot find the repository root (Tools/python/tdf_decrypt.py) above \(#filePath)")
    }

    /// The `tdf` built with this test bundle. SwiftPM puts executables and the test bundle in the
    /// same products directory (`<scratch>/<config>/`), whatever the scratch path is, so that
    /// directory is searched first; package-local and repository `.build` folders are fallbacks.
    static func tdfExecutable() throws -> URL {
        var directories: [URL] = []
        if let override = ProcessInfo.processInfo.environment["MEDIADRM_TDF"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        directories.append(running.deletingLastPathComponent())
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var url = executable.deletingLastPathComponent()
            for _ in 0..<4 {
                directories.append(url)
                url.deleteLastPathComponent()
            }
        }
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        directories.append(package.appendingPathComponent(".build/debug"))
        if let root = try? repositoryRoot() {
            directories.append(root.appendingPathComponent(".build/debug"))
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent("tdf")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw Failure("the built 'tdf' executable was not found next to the test bundle (searched: "
                      + directories.map(\.path).joined(separator: ", ") + "); build with 'swift build' first")
    }

    /// The venv interpreter that has cryptography and otdf-python. Missing is a failure, never
    /// a skip: these are the project's independent checks.
    static func python() throws -> URL {
        let path: String
        if let configured = ProcessInfo.processInfo.environment["MEDIADRM_PYTHON"], !configured.isEmpty {
            path = configured
        } else {
            path = try repositoryRoot().appendingPathComponent(".venv/bin/python").path
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Failure("the Python venv for the independent checks is missing (\(path)): run make deps")
        }
        if let problem = modulesMissing(path) { throw Failure(problem) }
        return URL(fileURLWithPath: path)
    }

    /// Checked once per run: the venv exists but lacks the pinned packages.
    private nonisolated(unsafe) static var checkedInterpreters: [String: String?] = [:]
    private static let checkLock = NSLock()

    private static func modulesMissing(_ path: String) -> String? {
        checkLock.lock()
        defer { checkLock.unlock() }
        if let known = checkedInterpreters[path] { return known }
        var problem: String?
        do {
            let result = try run(URL(fileURLWithPath: path), ["-c", "import cryptography, otdf_python"])
            if result.status != 0 {
                problem = "the Python venv (\(path)) lacks cryptography or otdf-python: run make deps"
            }
        } catch {
            problem = "the Python venv (\(path)) cannot run: run make deps"
        }
        checkedInterpreters[path] = problem
        return problem
    }

    static func script(_ name: String) throws -> String {
        try repositoryRoot().appendingPathComponent("Tools/python/\(name)").path
    }

    /// Runs `executable` with `arguments`; stdout and stderr go to files, so a chatty process
    /// cannot block on a full pipe.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        if let directory { process.currentDirectoryURL = directory }
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus,
                      stdout: try Data(contentsOf: outURL),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    static func tdf(_ arguments: [String]) throws -> Result {
        try run(try tdfExecutable(), arguments)
    }

    static func python(_ script: String, _ arguments: [String]) throws -> Result {
        try run(try python(), [try self.script(script)] + arguments)
    }

    static func openssl(_ arguments: [String]) throws {
        let result = try run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments)
        guard result.status == 0 else { throw Failure("openssl \(arguments.first ?? "") failed: \(result.stderr)") }
    }
}

/// A scratch directory with KAS key pairs made by the openssl CLI (independent of our Crypto).
struct Workspace {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tdftool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ data: Data) throws -> String {
        try data.write(to: url.appendingPathComponent(name))
        return path(name)
    }

    func read(_ name: String) throws -> Data { try Data(contentsOf: url.appendingPathComponent(name)) }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Names in the directory, hidden temporaries included (to prove nothing half-written stays).
    func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }

    enum KeyKind: String, CaseIterable, Sendable { case rsa, ec }

    /// `<kind>.pem` (private, PKCS#8) and `<kind>.pub` (SPKI).
    func makeKeyPair(_ kind: KeyKind) throws {
        switch kind {
        case .rsa:
            try ToolHarness.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path("rsa.pem")])
        case .ec:
            try ToolHarness.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("ec.pem")])
        }
        try ToolHarness.openssl(["pkey", "-in", path("\(kind.rawValue).pem"), "-pubout", "-out", path("\(kind.rawValue).pub")])
    }

    func randomFile(_ name: String, count: Int) throws -> (String, Data) {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return (try write(name, data), data)
    }
}
