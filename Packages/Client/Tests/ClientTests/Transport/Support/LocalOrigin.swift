import Client
import Foundation
import MediaDRMJSON

struct TestSupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The worktree root, found from this file's path.
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<7 { url.deleteLastPathComponent() }
    return url
}()

func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("client-transport-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A project Python script that serves on 127.0.0.1 and prints its port as its first line:
/// started with the project's venv Python (`MEDIADRM_PYTHON`, else `python3`), stdin kept as a
/// pipe (the script stops when our end closes), stderr dropped.
struct LoopbackScript {
    let process: Process
    let input: Pipe
    let port: Int

    init(_ script: String, arguments: [String], role: String) throws {
        let process = Process()
        let path = repositoryRoot.appendingPathComponent("Tools/python/\(script)").path
        if let python = ProcessInfo.processInfo.environment["MEDIADRM_PYTHON"].flatMap({ $0.isEmpty ? nil : $0 }) {
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", path] + arguments
        }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let text = String(data: line, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let port = Int(text), port > 0 else {
            process.terminate()
            throw TestSupportError("\(role) did not print its port")
        }
        self.process = process
        self.input = input
        self.port = port
    }
}

/// `Tools/python/range_server.py` on 127.0.0.1, stopped when this object goes away (and by the
/// server itself when our end of its stdin closes).
final class LocalOrigin: @unchecked Sendable {
    let port: Int
    let scheme: String
    let root: URL
    private let process: Process
    private let input: Pipe

    init(root: URL, certificate: URL? = nil, key: URL? = nil, arguments: [String] = []) throws {
        self.root = root
        var args = ["--root", root.path]
        if let certificate, let key { args += ["--cert", certificate.path, "--key", key.path] }
        let server = try LoopbackScript("range_server.py", arguments: args + arguments, role: "the test origin")
        self.port = server.port
        self.scheme = certificate == nil ? "http" : "https"
        self.process = server.process
        self.input = server.input
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    struct Hits {
        let counts: [String: Int]
        /// (method, path, carried an Authorization header) in arrival order.
        let log: [(method: String, path: String, authorization: Bool)]
        /// `/__delay` paths whose client closed the connection before the answer, in order.
        let hangups: [String]
    }

    func hits(using client: HTTPClient) throws -> Hits {
        let response = try client.sendSynchronously(TransportRequest(url: url("/__hits")))
        let value = try JSONParser.parse(response.body)
        guard let object = value.object else { throw TestSupportError("hits are not an object") }
        var counts: [String: Int] = [:]
        for (key, count) in try object.requireObject("hits") { counts[key] = Int(count.int64 ?? -1) }
        var log: [(String, String, Bool)] = []
        for entry in try object.requireArray("log") {
            guard let e = entry.object else { throw TestSupportError("a log entry is not an object") }
            log.append((try e.requireString("method"), try e.requireString("path"), try e.requireBool("authorization")))
        }
        let hangups = try object.requireArray("hangups").map { value in
            guard let path = value.string else { throw TestSupportError("a hang-up is not a path") }
            return path
        }
        return Hits(counts: counts, log: log.map { (method: $0.0, path: $0.1, authorization: $0.2) }, hangups: hangups)
    }

    /// The GET requests in arrival order with their `Range` and `If-Range` headers.
    func rangeLog(using client: HTTPClient) throws -> [(path: String, range: String?, ifRange: String?)] {
        let response = try client.sendSynchronously(TransportRequest(url: url("/__hits")))
        guard let object = try JSONParser.parse(response.body).object else { throw TestSupportError("hits are not an object") }
        return try object.requireArray("log").compactMap { entry in
            guard let e = entry.object else { throw TestSupportError("a log entry is not an object") }
            guard try e.requireString("method") == "GET" else { return nil }
            return (try e.requireString("path"), try e.optionalString("range"), try e.optionalString("ifRange"))
        }
    }

    /// Closing stdin stops the server even if SIGTERM were blocked in it.
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// A private CA, a server certificate for 127.0.0.1 and localhost signed by it, an unrelated CA,
/// and the SPKI pins, all made by the openssl CLI in a temporary directory.
struct TLSFixture: Sendable {
    let directory: URL
    let caPEM: Data
    let otherCAPEM: Data
    let serverCertificate: URL
    let serverKey: URL
    /// `sha256//...` of the server key, computed by the openssl CLI.
    let serverPin: String
    let otherPin: String

    static let shared: Result<TLSFixture, TestSupportError> = {
        do { return .success(try TLSFixture()) } catch { return .failure(TestSupportError("TLS fixture: \(error)")) }
    }()

    private init() throws {
        directory = try makeTemporaryDirectory()
        let script = """
        set -e
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem \
          -days 2 -subj "/CN=MediaDRM Test CA" -addext "basicConstraints=critical,CA:TRUE" \
          -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout other.key -out other.pem \
          -days 2 -subj "/CN=Unrelated Test CA" -addext "basicConstraints=critical,CA:TRUE" \
          -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr \
          -subj "/CN=127.0.0.1" 2>/dev/null
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\nkeyUsage=critical,digitalSignature\\n' > server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
          -extfile server.ext 2>/dev/null
        openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64 > server.pin
        openssl x509 -in other.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64 > other.pin
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestSupportError("openssl failed to make the test PKI") }
        caPEM = try Data(contentsOf: directory.appendingPathComponent("ca.pem"))
        otherCAPEM = try Data(contentsOf: directory.appendingPathComponent("other.pem"))
        serverCertificate = directory.appendingPathComponent("server.pem")
        serverKey = directory.appendingPathComponent("server.key")
        let folder = directory
        func pin(_ name: String) throws -> String {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return "sha256//" + text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        serverPin = try pin("server.pin")
        otherPin = try pin("other.pin")
    }
}
