import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMEncoding
import MediaDRMJSON

/// TEST DOUBLES for the two transports to the FairPlay Streaming Server SDK's JSON interface.
/// They are not FairPlay and make no CKC: each records the request documents it is given and
/// answers canned response documents shaped like the SDK's `fairplay-streaming-response`, so
/// the tests can check exactly what the KAS sends and what it does with the answers.
enum SDKTransportTestDouble {
    /// The canned answers: `get-client-info` reports a `main`, HDCP type 1, non-VM device;
    /// `create-ckc` answers status 0 with `ckc` (base64) and `spcAssetID` as `asset-id`.
    static func writeAnswers(in directory: TemporaryDirectory, ckc: Data, spcAssetID: String?) throws {
        try directory.write("client-info.json", #"{"fairplay-streaming-response":{"get-client-info":[{"id":1,"status":0,"security-level":"main","hdcp-type":1,"vm-device-info":{"is-vm":false}}]}}"#)
        var item: [(String, JSONValue)] = [("id", 1), ("status", 0), ("ckc", .string(Base64.encode(ckc)))]
        if let spcAssetID { item.append(("asset-id", .string(spcAssetID))) }
        let answer = JSONValue.object(JSONObject([("fairplay-streaming-response", .object(JSONObject([
            ("create-ckc", .array([.object(JSONObject(item))])),
        ])))]))
        try directory.write("ckc.json", JSONWriter.string(answer, options: [.sortedKeys]))
    }

    /// The request documents received so far, oldest first.
    static func requests(in directory: TemporaryDirectory) -> [Data] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix("request-") }
            .sorted { (Int($0.dropFirst(8).dropLast(5)) ?? 0) < (Int($1.dropFirst(8).dropLast(5)) ?? 0) }
        return names.compactMap { FileManager.default.contents(atPath: directory.appending($0)) }
    }
}

/// TEST DOUBLE of an executable speaking the SDK's JSON on stdin/stdout (not FairPlay). Its
/// second argument picks a behaviour: `answer` (record, then answer), `fail` (exit 3),
/// `sleep` (answers nothing for 600 s, far past any timeout a test sets), `flood` (megabytes of output), `noread` (answers without reading).
final class SDKCommandTestDouble {
    static let script = #"""
    #!/bin/sh
    # TEST DOUBLE for the FairPlay SDK's JSON transport, used by the KAS tests only. Not FairPlay:
    # it records each request document and prints canned answers.
    dir="$1"
    case "$2" in
      sleep) exec sleep 600 ;;
      flood) exec head -c 3000000 /dev/zero ;;
      fail) cat > /dev/null; printf '{}'; exit 3 ;;
      noread) exec cat "$dir/ckc.json" ;;
    esac
    n=$(ls "$dir" | grep -c '^request-')
    cat > "$dir/request-$n.json"
    if grep -q '"get-client-info"' "$dir/request-$n.json"; then cat "$dir/client-info.json"; else cat "$dir/ckc.json"; fi
    """#

    let directory: TemporaryDirectory
    let executable: String

    init(ckc: Data = Data(repeating: 0xC0, count: 48), spcAssetID: String?) throws {
        directory = try TemporaryDirectory("sdk-command-test-double")
        executable = try directory.write("sdk-command-test-double.sh", Self.script)
        guard chmod(executable, 0o755) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        try SDKTransportTestDouble.writeAnswers(in: directory, ckc: ckc, spcAssetID: spcAssetID)
    }

    func arguments(_ mode: String = "answer") -> [String] { [directory.path, mode] }

    /// A real DER application certificate made by the openssl CLI in `directory` (what a
    /// `fairplay.certificateFile` holds; not Apple's).
    static func certificate(in directory: String) throws -> (path: String, bytes: Data) {
        let path = directory + "/app-cert.der"
        try ProjectTools.check(runProcess("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=fps-test",
            "-days", "1", "-outform", "der", "-out", path, "-keyout", directory + "/app-cert-key.pem",
        ]), "openssl req")
        return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func transport(_ mode: String = "answer", timeoutSeconds: Int = 10, maxResponseBytes: Int = 1 << 20) -> FairPlayCommandTransport {
        FairPlayCommandTransport(executable: executable, arguments: arguments(mode), timeoutSeconds: timeoutSeconds,
                                 maxResponseBytes: maxResponseBytes)
    }

    var requests: [Data] { SDKTransportTestDouble.requests(in: directory) }
}

/// TEST DOUBLE of an HTTP service wrapping the SDK (not FairPlay), a Python process on
/// 127.0.0.1: `POST /sdk` records and answers, `/redirect` answers 307 to `/sdk`, `/error`
/// answers 500, `/slow` answers after 600 s,
/// far past any timeout a test sets. Stopped with SIGKILL.
final class SDKServiceTestDouble {
    static let script = #"""
    # TEST DOUBLE for a service wrapping the FairPlay SDK, used by the KAS tests only. Not FairPlay.
    import http.server, os, sys, time
    d = sys.argv[1]
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
            if self.path == '/redirect':
                self.send_response(307)
                self.send_header('Location', '/sdk')
                self.send_header('Content-Length', '0')
                self.end_headers()
                return
            if self.path == '/slow':
                time.sleep(600)
            n = len([f for f in os.listdir(d) if f.startswith('request-')])
            with open(os.path.join(d, 'request-%d.json' % n), 'wb') as f:
                f.write(body)
            name = 'client-info.json' if b'"get-client-info"' in body else 'ckc.json'
            with open(os.path.join(d, name), 'rb') as f:
                out = f.read()
            self.send_response(500 if self.path == '/error' else 200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """#

    let directory: TemporaryDirectory
    let process = Process()
    let port: Int

    init(ckc: Data = Data(repeating: 0xC0, count: 48), spcAssetID: String?) throws {
        directory = try TemporaryDirectory("sdk-service-test-double")
        let script = try directory.write("sdk-service-test-double.py", Self.script)
        try SDKTransportTestDouble.writeAnswers(in: directory, ckc: ckc, spcAssetID: spcAssetID)
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, directory.path]
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/nonexistent") }

    var requests: [Data] { SDKTransportTestDouble.requests(in: directory) }
}
