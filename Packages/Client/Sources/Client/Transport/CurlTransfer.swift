import CCurl
import Foundation
import Synchronization

/// Set from any thread to stop a running transfer at its next callback. `ThreadBridge` gives
/// each of its threads one (`current`), so every transfer made there, however deep in blocking
/// work, stops when the awaiting task is cancelled.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func cancel() { flag.store(true, ordering: .releasing) }
    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    private static let threadKey = "mediadrm.cancellation"

    /// The flag of the bridge thread this runs on; nil on any other thread.
    static var current: CancellationFlag? { Thread.current.threadDictionary[threadKey] as? CancellationFlag }

    static func setCurrent(_ flag: CancellationFlag) { Thread.current.threadDictionary[threadKey] = flag }
}

/// Counts transfers that reached libcurl (tests use it to prove a refused request never did).
final class TransferCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// The state of one transfer, reached from libcurl's callbacks through an unretained pointer
/// that lives only for the duration of `curl_easy_perform` on this thread.
final class TransferState {
    enum Abort { case redirect, bodyTooLarge, headersTooLarge, cancelled, sinkRefused }

    static let maxHeaderBytes = 64 << 10
    static let maxHeaderFields = 200

    let limit: Int
    let isHead: Bool
    let cancellation: CancellationFlag?
    let sink: (any ResponseBodySink)?
    /// Set once a 2xx answer's headers went to `sink`: its body goes there too.
    var sinking = false
    var delivered = 0
    var body = Data()
    var fields: [HTTPHeaderField] = []
    var status = 0
    var headerBytes = 0
    var abort: Abort?

    init(limit: Int, isHead: Bool, cancellation: CancellationFlag?, sink: (any ResponseBodySink)? = nil) {
        self.limit = limit
        self.isHead = isHead
        self.cancellation = cancellation
        self.sink = sink
    }

    /// One complete header line (libcurl delivers whole lines, status lines included).
    func header(_ line: UnsafeRawBufferPointer) -> Bool {
        headerBytes += line.count
        guard headerBytes <= Self.maxHeaderBytes else { abort = .headersTooLarge; return false }
        let text = String(decoding: line, as: UTF8.self)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            // A new response (after 1xx) starts: only the final response's fields are kept.
            let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
            status = parts.count >= 2 && parts[1].count == 3 ? Int(parts[1]) ?? 0 : 0
            fields = []
            return true
        }
        if trimmed.isEmpty {
            // End of a header block: refuse a redirect before reading its body.
            if (300..<400).contains(status) { abort = .redirect; return false }
            // A HEAD answer's Content-Length describes a body that is not sent.
            if status >= 200, !isHead, let length = fields.first(where: { $0.name.lowercased() == "content-length" }),
               let value = UInt64(length.value), value > UInt64(limit) {
                abort = .bodyTooLarge
                return false
            }
            if (200..<300).contains(status), !isHead, let sink {
                sinking = true
                guard sink.begin(status: status, headers: TransportHeaders(fields)) else { abort = .sinkRefused; return false }
            }
            return true
        }
        if text.first == " " || text.first == "\t" {
            guard let last = fields.popLast() else { return true }
            fields.append(HTTPHeaderField(name: last.name, value: last.value + " " + trimmed))
            return true
        }
        guard fields.count < Self.maxHeaderFields else { abort = .headersTooLarge; return false }
        guard let colon = trimmed.firstIndex(of: ":") else { return true }
        let name = String(trimmed[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(trimmed[trimmed.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        fields.append(HTTPHeaderField(name: name, value: value))
        return true
    }

    func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if cancellation?.isCancelled == true { abort = .cancelled; return false }
        guard (300..<400).contains(status) == false else { abort = .redirect; return false }
        if sinking, let sink {
            guard chunk.count <= limit - delivered else { abort = .bodyTooLarge; return false }
            delivered += chunk.count
            guard sink.receive(chunk) else { abort = .sinkRefused; return false }
            return true
        }
        guard chunk.count <= limit - body.count else { abort = .bodyTooLarge; return false }
        body.append(contentsOf: chunk)
        return true
    }
}

private func curlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                                _ context: UnsafeMutableRawPointer?) -> Int {
    let total = size * count
    guard let context else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    return state.header(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
}

private func curlWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                               _ context: UnsafeMutableRawPointer?) -> Int {
    let total = size * count
    guard let context else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    return state.write(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
}

private func curlProgressCallback(_ context: UnsafeMutableRawPointer?, _ dltotal: curl_off_t, _ dlnow: curl_off_t,
                                  _ ultotal: curl_off_t, _ ulnow: curl_off_t) -> Int32 {
    guard let context else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    if state.cancellation?.isCancelled == true {
        state.abort = .cancelled
        return 1
    }
    return 0
}

/// One request on one easy handle, start to finish, on the calling thread.
struct CurlTransfer {
    let configuration: HTTPClientConfiguration
    let pool: CurlHandlePool
    let counter: TransferCounter

    /// Cancelled through `CancellationFlag.current` (set on `ThreadBridge` threads): checked before
    /// any handle exists, at every libcurl callback, and once more after the transfer, so a
    /// cancellation that arrives at any point ends the call with `cancelled`.
    func run(_ request: TransportRequest) throws(TransportError) -> TransportResponse {
        let cancellation = CancellationFlag.current
        // Everything that can be refused is refused before a handle (let alone a socket) exists.
        let url = try TransportURL.validate(request.url)
        try HeaderRules.validate(request.headers)
        if request.body != nil && (request.method == .get || request.method == .head) {
            throw TransportError(.invalidRequest, "GET and HEAD requests cannot carry a body")
        }
        let limit = request.maxResponseBytes ?? configuration.maxResponseBytes
        guard limit >= 0 else { throw TransportError(.invalidRequest, "the response limit must not be negative") }
        let totalTimeout = HTTPClientConfiguration.milliseconds(request.timeout ?? configuration.totalTimeout)
        guard totalTimeout >= 1 else { throw TransportError(.invalidRequest, "the timeout must be at least one millisecond") }
        if cancellation?.isCancelled == true { throw TransportError.cancelledRequest }

        guard let handle = pool.take() else { throw TransportError(.internalError, "libcurl could not create a handle") }
        defer { pool.give(handle) }

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { Self.freeWiped(headerList) }
        var lines = request.headers.map { "\($0.name): \($0.value)" }
        lines.append("Expect:")
        // libcurl would otherwise label every POST body as a form.
        if request.headers["content-type"] == nil { lines.append("Content-Type:") }
        if let credential = request.credential { lines.append(credential.authorizationHeaderLine) }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw TransportError(.internalError, "libcurl could not allocate a header list")
            }
            headerList = appended
        }

        let state = TransferState(limit: limit, isHead: request.method == .head, cancellation: cancellation,
                                  sink: request.bodySink)
        let context = Unmanaged.passUnretained(state).toOpaque()
        let h = handle.raw
        let connectTimeout = HTTPClientConfiguration.milliseconds(configuration.connectTimeout)

        var result: CURLcode = CURLE_OK
        func set(_ rc: CURLcode) { if result == CURLE_OK { result = rc } }
        set(mediadrm_curl_setopt_curlu(h, url.handle))
        set(mediadrm_curl_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(mediadrm_curl_setopt_string(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        set(mediadrm_curl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0))
        set(mediadrm_curl_setopt_long(h, CURLOPT_MAXREDIRS, 0))
        set(mediadrm_curl_setopt_long(h, CURLOPT_NOSIGNAL, 1))
        set(mediadrm_curl_setopt_string(h, CURLOPT_PROXY, ""))
        set(mediadrm_curl_setopt_long(h, CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue)))
        set(mediadrm_curl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout))
        set(mediadrm_curl_setopt_long(h, CURLOPT_TIMEOUT_MS, totalTimeout))
        set(mediadrm_curl_setopt_long(h, CURLOPT_SSL_VERIFYPEER, 1))
        set(mediadrm_curl_setopt_long(h, CURLOPT_SSL_VERIFYHOST, 2))
        set(mediadrm_curl_setopt_long(h, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)))
        if let pem = configuration.trustedCertificatesPEM {
            // Only the given CAs: the built-in bundle file and directory are switched off.
            set(mediadrm_curl_setopt_string(h, CURLOPT_CAINFO, nil))
            set(mediadrm_curl_setopt_string(h, CURLOPT_CAPATH, nil))
            set(pem.withUnsafeBytes { mediadrm_curl_set_cainfo_blob(h, $0.baseAddress, $0.count) })
        }
        if let pin = configuration.publicKeyPin {
            set(mediadrm_curl_setopt_string(h, CURLOPT_PINNEDPUBLICKEY, pin))
        }
        set(mediadrm_curl_setopt_string(h, CURLOPT_USERAGENT, configuration.userAgent))
        set(mediadrm_curl_setopt_slist(h, CURLOPT_HTTPHEADER, headerList))
        if request.method != .head {
            set(mediadrm_curl_setopt_off(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)))
        }
        set(mediadrm_curl_set_header_callback(h, curlHeaderCallback, context))
        set(mediadrm_curl_set_write_callback(h, curlWriteCallback, context))
        set(mediadrm_curl_set_xferinfo_callback(h, curlProgressCallback, context))
        switch request.method {
        case .get:
            set(mediadrm_curl_setopt_long(h, CURLOPT_HTTPGET, 1))
        case .head:
            set(mediadrm_curl_setopt_long(h, CURLOPT_NOBODY, 1))
        case .post, .put, .delete:
            let body = request.body ?? Data()
            if request.body != nil || request.method == .post {
                set(mediadrm_curl_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                // COPYPOSTFIELDS copies the bytes, so nothing here has to outlive the call.
                if body.isEmpty {
                    set(mediadrm_curl_setopt_string(h, CURLOPT_COPYPOSTFIELDS, ""))
                } else {
                    set(body.withUnsafeBytes { raw in
                        mediadrm_curl_setopt_pointer(h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
                    })
                }
            }
            if request.method != .post {
                set(mediadrm_curl_setopt_string(h, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
            }
        }
        guard result == CURLE_OK else {
            throw TransportError(.internalError, "libcurl refused a transport option", curlCode: Int(result.rawValue))
        }

        counter.increment()
        let code = withExtendedLifetime(url) { withExtendedLifetime(state) { curl_easy_perform(h) } }
        // Cancelled after the last callback: the caller no longer waits for this answer.
        if cancellation?.isCancelled == true { state.abort = .cancelled }

        if let abort = state.abort {
            switch abort {
            case .redirect:
                throw TransportError(.redirectRefused, "the server answered with a redirect, which is never followed", status: state.status)
            case .bodyTooLarge:
                throw TransportError(.responseTooLarge, "the response body is larger than the limit", status: state.status)
            case .headersTooLarge:
                throw TransportError(.responseTooLarge, "the response headers are larger than the limit", status: state.status)
            case .cancelled:
                throw TransportError.cancelledRequest
            case .sinkRefused:
                throw TransportError(.sinkRefused, "the response body was refused by its destination", status: state.status)
            }
        }
        guard code == CURLE_OK else { throw Self.map(code) }

        var status = 0
        _ = mediadrm_curl_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        if (300..<400).contains(status) {
            throw TransportError(.redirectRefused, "the server answered with a redirect, which is never followed", status: status)
        }
        let headers = TransportHeaders(state.fields)
        guard (200..<300).contains(status) || request.extraAcceptedStatuses.contains(status) else {
            throw TransportError(.httpStatus, "the server answered HTTP \(status) for \(url.displayPath)", status: status,
                                 retryAfterSeconds: status == 429 || status == 503 ? headers.retryAfterSeconds : nil)
        }
        return TransportResponse(status: status, headers: headers, body: state.body)
    }

    private static func map(_ code: CURLcode) -> TransportError {
        let number = Int(code.rawValue)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError(.timedOut, "the request timed out", curlCode: number)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT:
            return TransportError(.connectionFailed, "the server could not be reached", curlCode: number)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return TransportError(.pinMismatch, "the server's public key does not match the pin", curlCode: number)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_CERTPROBLEM, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS:
            return TransportError(.tlsFailure, "the TLS connection could not be verified", curlCode: number)
        case CURLE_FILESIZE_EXCEEDED:
            return TransportError(.responseTooLarge, "the response body is larger than the limit", curlCode: number)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return TransportError(.invalidURL, "libcurl refused the URL", curlCode: number)
        case CURLE_ABORTED_BY_CALLBACK:
            return TransportError(.cancelled, "the request was cancelled", curlCode: number)
        default:
            return TransportError(.protocolError, "the transfer failed", curlCode: number)
        }
    }

    /// The list may hold the bearer token: overwrite every string before freeing it.
    private static func freeWiped(_ list: UnsafeMutablePointer<curl_slist>?) {
        var node = list
        while let current = node {
            if let data = current.pointee.data { memset(data, 0, strlen(data)) }
            node = current.pointee.next
        }
        curl_slist_free_all(list)
    }
}

extension TransportError {
    /// How every cancelled request ends, whichever check saw the cancellation first.
    static var cancelledRequest: TransportError { TransportError(.cancelled, "the request was cancelled") }
}
