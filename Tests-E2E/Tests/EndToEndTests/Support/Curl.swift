import Foundation

/// HTTP through the curl CLI: an independent client for the KAS and the origin, trusting the
/// KAS's test CA, never following a redirect. The bearer token goes through a header file, so it
/// is never on a command line.
enum Curl {
    struct Response {
        var status: Int
        var body: Data
        /// Header fields of the final response, names lower-cased.
        var headers: [String: String] = [:]
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func request(_ method: String, _ url: String, token: String? = nil, json: Any? = nil,
                        headers: [String] = [], caFile: String? = nil) throws -> Response {
        let work = Scratch.directory("curl")
        defer { try? FileManager.default.removeItem(atPath: work) }
        var lines = headers
        if let token { lines.append("Authorization: Bearer \(token)") }
        var arguments = ["-sS", "--max-redirs", "0", "-X", method, "-o", work + "/body", "-D", work + "/response-headers", "-w", "%{http_code}"]
        if !lines.isEmpty {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: work + "/headers"))
            arguments += ["-H", "@" + work + "/headers"]
        }
        if let caFile { arguments += ["--cacert", caFile] }
        var input: Data?
        if let json {
            input = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes])
            arguments += ["-H", "Content-Type: application/json", "--data-binary", "@-"]
        }
        let result = try run("/usr/bin/curl", arguments + [url], input: input)
        guard result.status == 0, let status = Int(result.stdoutText) else {
            throw TestFailure("curl \(method) \(url) failed (\(result.status)): \(result.stderr)")
        }
        let body = FileManager.default.contents(atPath: work + "/body") ?? Data()
        var fields: [String: String] = [:]
        let head = (try? String(contentsOfFile: work + "/response-headers", encoding: .utf8)) ?? ""
        for line in head.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, body: body, headers: fields)
    }
}
